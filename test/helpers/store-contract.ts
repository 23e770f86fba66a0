import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import {
  InvalidSessionRecordError,
  LeaseLostError,
  SessionConflictError,
  SessionNotFoundError,
} from '../../src/errors/session-errors.js';
import { historyKey, recordKey } from '../../src/persistence/session-keys.js';
import {
  emptyTotals,
  type SessionKey,
  type SessionStore,
} from '../../src/persistence/session-store.js';
import { hasLeases, type SessionLeases } from '../../src/persistence/session-leases.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { describeDeadlineContract } from './deadline-contract.js';
import { commitOn, entry, msg, newSession, reply, usage } from './store-fixtures.js';
import { describeAuditContract } from './audit-contract.js';

/** One store under test, with raw access to its storage for the damage tests. */
export interface StoreHarness {
  store: SessionStore;
  /** Replaces the stored bytes of a session's record with `text`, bypassing the store. */
  damageRecord(key: SessionKey, text: string): Promise<void>;
  /** Replaces the stored bytes of one history item with `text`, bypassing the store. */
  damageHistoryItem(key: SessionKey, position: number, text: string): Promise<void>;
  /** Replaces the stored bytes of every audit entry of `userId`, bypassing the store. */
  damageAudit(userId: string, text: string): Promise<void>;
  /**
   * Files the session under `deadline` in the approval-deadline index, bypassing the store
   * (an entry its record does not hold).
   */
  fileDeadline(key: SessionKey, deadline: number): Promise<void>;
  /** Closes the store and removes what it left behind. */
  cleanup(): Promise<void>;
}

/** Opens a fresh, empty store whose leases expire by `clock`. */
export type MakeStore = (clock: FakeClock) => Promise<StoreHarness>;

const TTL = 10_000;

// ---- contract -------------------------------------------------------------------------------

/**
 * The SessionStore contract (src/persistence/STORE-CONTRACT.md), run alike against every
 * store: memory, LevelDB and PostgreSQL.
 */
export function describeStoreContract(name: string, makeStore: MakeStore): void {
  describeAuditContract(name, makeStore);
  describeDeadlineContract(name, makeStore);
  describe(`${name}: store contract`, () => {
    let harness: StoreHarness;
    let store: SessionStore;
    let clock: FakeClock;
    const alice = { sessionId: 's1', userId: 'alice' };

    beforeEach(async () => {
      clock = new FakeClock();
      harness = await makeStore(clock);
      store = harness.store;
    });
    afterEach(async () => harness.cleanup());

    it('creates at version 1, refuses a duplicate, loads what was created', async () => {
      const created = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      expect(created.version).toBe(1);
      await expect(store.create(newSession('s1', 'alice'))).rejects.toMatchObject({
        name: 'SessionConflictError',
        expectedVersion: 0,
        actualVersion: undefined,
      });
      await expect(store.load(alice)).resolves.toEqual(created);
      await expect(store.loadForUpdate(alice)).resolves.toEqual({
        record: created,
        userUsage: emptyTotals(),
      });
      await expect(store.readHistory(alice)).resolves.toEqual([msg('hi')]);
      await expect(store.create(newSession('s2'), [msg('x')])).rejects.toBeInstanceOf(TypeError);
    });

    it('saves at version + 1 and reads history ranges and journal ranges per run', async () => {
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      const commit = commitOn(
        v1,
        [reply('hello'), msg('more')],
        [entry('run-1', 1), entry('run-1', 0), entry('run-2', 0)],
      );
      const v2 = await store.save(commit);
      expect(v2).toEqual({ ...commit.record, version: 2 });
      await expect(store.load(alice)).resolves.toEqual(v2);
      await expect(store.readHistory(alice)).resolves.toEqual([
        msg('hi'),
        reply('hello'),
        msg('more'),
      ]);
      await expect(store.readHistory(alice, 1, 2)).resolves.toEqual([reply('hello')]);
      await expect(store.readHistory(alice, 2)).resolves.toEqual([msg('more')]);
      await expect(store.readHistory(alice, 3)).resolves.toEqual([]);
      await expect(store.readHistory(alice, -1)).rejects.toBeInstanceOf(TypeError);
      await expect(store.readJournal(alice, 'run-1', 1)).resolves.toEqual(entry('run-1', 1));
      await expect(store.readJournal(alice, 'run-1', 2)).resolves.toBeUndefined();
      await expect(store.readRunJournal(alice, 'run-1')).resolves.toEqual([
        entry('run-1', 0),
        entry('run-1', 1),
      ]);
      await expect(store.readRunJournal(alice, 'run-2')).resolves.toEqual([entry('run-2', 0)]);
      await expect(store.readRunJournal(alice, 'run')).resolves.toEqual([]);
      const v3 = await store.save(commitOn(v2, [reply('done')], [entry('run-1', 2)]));
      expect(v3.version).toBe(3);
      await expect(store.readHistory(alice)).resolves.toHaveLength(4);
      await expect(store.readRunJournal(alice, 'run-1')).resolves.toHaveLength(3);
    });

    it('rejects a stale version, a missing session and a wrong historyLength, writing nothing', async () => {
      const v1 = await store.create(newSession('s1', 'alice'));
      const v2 = await store.save(commitOn(v1, [msg('a')]));
      await expect(store.save(commitOn(v1, [msg('b')]))).rejects.toMatchObject({
        name: 'SessionConflictError',
        expectedVersion: 1,
        actualVersion: 2,
      });
      await expect(store.load({ sessionId: 'nope', userId: 'alice' })).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      await expect(store.save(commitOn({ ...v1, sessionId: 'nope' }, []))).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      const bad = { ...commitOn(v2, [msg('c')]), items: [] };
      await expect(store.save(bad)).rejects.toBeInstanceOf(TypeError);
      await expect(store.load(alice)).resolves.toEqual(v2);
      await expect(store.readHistory(alice)).resolves.toEqual([msg('a')]);
    });

    it('lets exactly one of concurrent saves from the same version win', async () => {
      const v1 = await store.create(newSession('s1', 'alice'));
      const results = await Promise.allSettled(
        ['first', 'second', 'third'].map((text) => store.save(commitOn(v1, [msg(text)]))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.filter((r) => r.status === 'rejected');
      expect(lost).toHaveLength(2);
      for (const r of lost) expect(r.reason).toBeInstanceOf(SessionConflictError);
      await expect(store.load(alice)).resolves.toMatchObject({ version: 2, historyLength: 1 });
      await expect(store.readHistory(alice)).resolves.toHaveLength(1);
    });

    it('partitions by userId: the anonymous bucket, "" and look-alike ids never meet', async () => {
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('secret'),
      ]);
      await store.save(commitOn(v1, [], [entry('r', 0)]));
      const bob = { sessionId: 's1', userId: 'bob' };
      await expect(store.load(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readHistory(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readJournal(bob, 'r', 0)).resolves.toBeUndefined();
      await expect(store.readRunJournal(bob, 'r')).resolves.toEqual([]);
      await expect(store.purge(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.list({ userId: 'bob' })).resolves.toEqual({
        sessions: [],
        nextCursor: undefined,
      });
      await store.create(newSession('s2'));
      await store.create(newSession('s3', ''));
      for (const userId of ['a', 'u:a', 'x!s!a', 'undefined', 'null']) {
        await expect(store.load({ sessionId: 's2', userId })).rejects.toBeInstanceOf(
          SessionNotFoundError,
        );
      }
      await expect(store.load({ sessionId: 's2', userId: '' })).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      await expect(store.load({ sessionId: 's3' })).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.load({ sessionId: 's3', userId: '' })).resolves.toMatchObject({
        userId: '',
      });
      await expect(store.list({ userId: '' })).resolves.toMatchObject({
        sessions: [{ sessionId: 's3', userId: '' }],
      });
      const anonymous = await store.list();
      expect(anonymous.sessions.map((s) => s.sessionId)).toEqual(['s2']);
    });

    it('lists one user with paging and a status filter, following saves', async () => {
      const statuses = ['active', 'completed', 'active', 'failed', 'active'] as const;
      for (const [i, status] of statuses.entries()) {
        await store.create(newSession(`c${i}`, 'carol', status));
      }
      await store.create(newSession('d0', 'dave'));
      const page1 = await store.list({ userId: 'carol', limit: 2 });
      expect(page1.sessions.map((s) => s.sessionId)).toEqual(['c0', 'c1']);
      expect(page1.sessions[0]).not.toHaveProperty('snapshot');
      const page2 = await store.list({ userId: 'carol', limit: 2, cursor: page1.nextCursor });
      expect(page2.sessions.map((s) => s.sessionId)).toEqual(['c2', 'c3']);
      const page3 = await store.list({ userId: 'carol', limit: 2, cursor: page2.nextCursor });
      expect(page3).toEqual({
        sessions: [expect.objectContaining({ sessionId: 'c4' })],
        nextCursor: undefined,
      });
      const active1 = await store.list({ userId: 'carol', status: 'active', limit: 2 });
      expect(active1.sessions.map((s) => s.sessionId)).toEqual(['c0', 'c2']);
      const active2 = await store.list({
        userId: 'carol',
        status: 'active',
        limit: 2,
        cursor: active1.nextCursor,
      });
      expect(active2).toMatchObject({ sessions: [{ sessionId: 'c4' }], nextCursor: undefined });
      await expect(store.list({ userId: 'carol', limit: 0 })).rejects.toBeInstanceOf(TypeError);
      const c1 = await store.load({ sessionId: 'c1', userId: 'carol' });
      await store.save(commitOn(c1, [msg('x')], [], { status: 'active' }));
      const active = await store.list({ userId: 'carol', status: 'active' });
      expect(active.sessions.map((s) => [s.sessionId, s.version, s.historyLength])).toContainEqual([
        'c1',
        2,
        1,
      ]);
    });

    it('keeps a tombstone: a late write after the delete loses', async () => {
      const v1 = await store.create(newSession('s1', 'alice'));
      const v2 = await store.save(commitOn(v1, [msg('a')]));
      // The delete, and a writer still holding version 2 and one still holding version 1.
      const deleted = await store.save(commitOn(v2, [], [], { status: 'deleted' }));
      await expect(store.save(commitOn(v2, [msg('late')]))).rejects.toMatchObject({
        name: 'SessionConflictError',
        actualVersion: 3,
      });
      await expect(store.save(commitOn(v1, [msg('later')]))).rejects.toBeInstanceOf(
        SessionConflictError,
      );
      // Even a writer that read the tombstone cannot revive it.
      await expect(
        store.save(commitOn(deleted, [msg('revive')], [], { status: 'active' })),
      ).rejects.toMatchObject({ name: 'SessionConflictError', expectedVersion: 3 });
      await expect(store.load(alice)).resolves.toEqual(deleted);
      await expect(store.readHistory(alice)).resolves.toEqual([msg('a')]);
      await expect(store.list({ userId: 'alice', status: 'deleted' })).resolves.toMatchObject({
        sessions: [{ sessionId: 's1', version: 3 }],
      });
    });

    it('purges the record, listing, history and journal', async () => {
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      await store.save(commitOn(v1, [reply('yo')], [entry('r1', 0), entry('r2', 3)]));
      await store.create(newSession('s10', 'alice'));
      await store.purge(alice);
      await expect(store.load(alice)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readHistory(alice)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readJournal(alice, 'r1', 0)).resolves.toBeUndefined();
      await expect(store.readRunJournal(alice, 'r2')).resolves.toEqual([]);
      const listed = await store.list({ userId: 'alice' });
      expect(listed.sessions.map((s) => s.sessionId)).toEqual(['s10']);
      await expect(store.purge(alice)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.create(newSession('s1', 'alice'))).resolves.toMatchObject({ version: 1 });
      await expect(store.readHistory(alice)).resolves.toEqual([]);
    });

    it('accumulates per-user usage totals in the same write', async () => {
      let rec = await store.create(newSession('s1', 'alice'));
      rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 10, 0.5) }));
      rec = await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(2, 5, 0.25) }));
      await store.save(commitOn(rec, [msg('c')]));
      const other = await store.create(newSession('s2', 'alice'));
      await store.save(commitOn(other, [], [], { userUsageDelta: usage(1, 1, 1) }));
      const anon = await store.create(newSession('s3'));
      await store.save(commitOn(anon, [], [], { userUsageDelta: usage(7, 7, 7) }));
      await expect(store.userUsage('alice')).resolves.toEqual(usage(4, 16, 1.75));
      await expect(store.userUsage(undefined)).resolves.toEqual(usage(7, 7, 7));
      await expect(store.userUsage('bob')).resolves.toEqual(emptyTotals());
      await expect(store.loadForUpdate(alice)).resolves.toMatchObject({
        userUsage: usage(4, 16, 1.75),
      });
      // A conflicting save adds nothing.
      await expect(
        store.save(commitOn(other, [], [], { userUsageDelta: usage(9, 9, 9) })),
      ).rejects.toBeInstanceOf(SessionConflictError);
      await expect(store.userUsage('alice')).resolves.toEqual(usage(4, 16, 1.75));
    });

    it('adds costs up without float noise (0.1 + 0.2 is 0.3)', async () => {
      let rec = await store.create(newSession('s1', 'alice'));
      rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 1, 0.1) }));
      await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(1, 1, 0.2) }));
      expect(String((await store.userUsage('alice')).costUsd)).toBe('0.3');
    });

    it('reports damage on read as a typed error naming the key, and overwrites nothing', async () => {
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 2 }, [
        msg('hi'),
        reply('hello'),
      ]);
      await harness.damageHistoryItem(alice, 1, '{"type":"message","role":"robot"}');
      await expect(store.readHistory(alice, 0, 2)).rejects.toMatchObject({
        name: 'InvalidSessionRecordError',
        key: historyKey(alice, 1),
      });
      await expect(store.readHistory(alice, 0, 1)).resolves.toEqual([msg('hi')]);
      for (const garbage of ['{not json', '#00000000{"schemaVersion":2}']) {
        await harness.damageRecord(alice, garbage);
        const loading = store.load(alice);
        await expect(loading).rejects.toBeInstanceOf(InvalidSessionRecordError);
        await expect(loading).rejects.toMatchObject({ key: recordKey(alice) });
        await expect(store.loadForUpdate(alice)).rejects.toBeInstanceOf(InvalidSessionRecordError);
        await expect(store.save(commitOn(v1, [msg('x')]))).rejects.toBeInstanceOf(
          InvalidSessionRecordError,
        );
      }
      // A corrupt session can still be purged.
      await store.purge(alice);
      await expect(store.load(alice)).rejects.toBeInstanceOf(SessionNotFoundError);
    });

    it('loadForUpdate given a known record reads another save, and damage, as without it', async () => {
      await store.create(newSession('s1', 'alice'));
      const { record: known } = await store.loadForUpdate(alice);
      await expect(store.loadForUpdate(alice, known)).resolves.toMatchObject({ record: known });
      // Another writer (here: the same store, from the known version) moves the session on.
      const saved = await store.save(commitOn(known, [msg('hi')]));
      const after = await store.loadForUpdate(alice, known);
      expect(after.record).not.toBe(known);
      expect(after.record).toMatchObject({ version: 2, historyLength: 1 });
      expect(after.record).toEqual(await store.load(alice));
      // The stored value damaged under a record this store saved: the typed error, as always.
      await harness.damageRecord(alice, '{not json');
      await expect(store.loadForUpdate(alice, saved)).rejects.toMatchObject({
        name: 'InvalidSessionRecordError',
        key: recordKey(alice),
      });
    });

    it('keeps one writer per session with leases, fencing a taken-over owner', async () => {
      if (!hasLeases(store)) throw new Error(`${name} must implement SessionLeases`);
      const leases: SessionLeases = store;
      const v1 = await store.create(newSession('s1', 'alice'));
      const first = await leases.acquireLease(alice, 'worker-a', TTL);
      expect(first).toEqual({
        sessionId: 's1',
        userId: 'alice',
        owner: 'worker-a',
        token: expect.any(Number) as number,
        expiresAt: clock.now() + TTL,
      });
      const a = first!;
      await expect(leases.acquireLease(alice, 'worker-b', TTL)).resolves.toBeUndefined();
      // Another user's session of the same id is another lease.
      await expect(
        leases.acquireLease({ sessionId: 's1', userId: 'bob' }, 'worker-b', TTL),
      ).resolves.toMatchObject({ owner: 'worker-b' });
      await expect(leases.acquireLease(alice, 'worker-a', TTL)).resolves.toMatchObject({
        token: a.token,
      });
      clock.advance(TTL / 2);
      const renewed = await leases.renewLease(a, TTL);
      expect(renewed).toMatchObject({ token: a.token, expiresAt: clock.now() + TTL });
      const v2 = await store.save(commitOn(v1, [msg('by a')], [], { lease: a }));
      // a stops renewing; its lease expires and b takes over.
      clock.advance(TTL);
      await expect(
        leases.expiredLeases({ userId: 'alice', expiredBefore: clock.now() }),
      ).resolves.toEqual([{ sessionId: 's1', userId: 'alice' }]);
      await expect(
        leases.expiredLeases({ userId: 'bob', expiredBefore: clock.now() - TTL * 10 }),
      ).resolves.toEqual([]);
      await expect(leases.expiredLeases({ expiredBefore: clock.now() })).resolves.toEqual([]);
      const b = (await leases.acquireLease(alice, 'worker-b', TTL))!;
      expect(b.token).toBeGreaterThan(a.token);
      // a's late write is refused even at the right version; nothing is written.
      const late = store.save(commitOn(v2, [msg('late a')], [entry('r', 0)], { lease: a }));
      await expect(late).rejects.toBeInstanceOf(LeaseLostError);
      await expect(late).rejects.toMatchObject({ code: 'LEASE_LOST', owner: 'worker-a' });
      await expect(store.load(alice)).resolves.toEqual(v2);
      await expect(store.readJournal(alice, 'r', 0)).resolves.toBeUndefined();
      await expect(leases.renewLease(a, TTL)).resolves.toBeUndefined();
      await leases.releaseLease(a); // a's release leaves b's lease alone
      await expect(leases.acquireLease(alice, 'worker-c', TTL)).resolves.toBeUndefined();
      const v3 = await store.save(commitOn(v2, [msg('by b')], [], { lease: b }));
      expect(v3.version).toBe(3);
      await leases.releaseLease(b);
      clock.advance(TTL * 2);
      // Released leases are not expired runs.
      await expect(
        leases.expiredLeases({ userId: 'alice', expiredBefore: clock.now() }),
      ).resolves.toEqual([]);
      const c = await leases.acquireLease(alice, 'worker-c', TTL);
      expect(c?.token).toBeGreaterThan(b.token);
      await expect(store.save(commitOn(v3, [], [], { lease: b }))).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await expect(leases.acquireLease(alice, '', TTL)).rejects.toBeInstanceOf(TypeError);
      await expect(leases.acquireLease(alice, 'x', 0)).rejects.toBeInstanceOf(TypeError);
    });

    it('reads a session’s lease as it holds it: live, expired, released, or none', async () => {
      if (!hasLeases(store) || !store.leaseOf) throw new Error(`${name} must implement leaseOf`);
      const leases = store as SessionLeases & { leaseOf: NonNullable<SessionLeases['leaseOf']> };
      await expect(leases.leaseOf(alice)).resolves.toBeUndefined();
      const a = (await leases.acquireLease(alice, 'worker-a', TTL))!;
      const live = { ...a, released: false, expired: false };
      await expect(leases.leaseOf(alice)).resolves.toEqual(live);
      // the partition holds: bob's session of the same id has none
      await expect(leases.leaseOf({ sessionId: 's1', userId: 'bob' })).resolves.toBeUndefined();
      clock.advance(TTL);
      await expect(leases.leaseOf(alice)).resolves.toEqual({ ...live, expired: true });
      const b = (await leases.acquireLease(alice, 'worker-b', TTL))!;
      await leases.releaseLease(b);
      await expect(leases.leaseOf(alice)).resolves.toEqual({
        ...b,
        released: true,
        expired: false,
      });
    });
  });
}
