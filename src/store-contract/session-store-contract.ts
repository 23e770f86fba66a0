import { strict as assert } from 'node:assert';
import {
  InvalidSessionRecordError,
  SessionConflictError,
  SessionNotFoundError,
} from '../errors/session-errors.js';
import { historyKey, recordKey } from '../persistence/session-keys.js';
import { emptyTotals } from '../persistence/session-store.js';
import { equal, isEqual, matches, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, entry, msg, newSession, reply, usage } from './contract-fixtures.js';

/**
 * The core of the SessionStore contract (src/persistence/STORE-CONTRACT.md): versions,
 * history, journal, partitions, listing, tombstones, purge, usage and damage.
 */
export function sessionStoreContract(
  tests: ContractTests,
  { name, open }: StoreContractOptions,
): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: store contract`, () => {
    const alice = { sessionId: 's1', userId: 'alice' };

    test('creates at version 1, refuses a duplicate, loads what was created', async (harness) => {
      const { store } = harness;
      const created = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      assert.equal(created.version, 1);
      await rejects(store.create(newSession('s1', 'alice')), {
        name: 'SessionConflictError',
        expectedVersion: 0,
        actualVersion: undefined,
      });
      equal(await store.load(alice), created);
      equal(await store.loadForUpdate(alice), {
        record: created,
        userUsage: emptyTotals(),
      });
      equal(await store.readHistory(alice), [msg('hi')]);
      await rejects(store.create(newSession('s2'), [msg('x')]), TypeError);
    });

    test('saves at version + 1 and reads history ranges and journal ranges per run', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      const commit = commitOn(
        v1,
        [reply('hello'), msg('more')],
        [entry('run-1', 1), entry('run-1', 0), entry('run-2', 0)],
      );
      const v2 = await store.save(commit);
      equal(v2, { ...commit.record, version: 2 });
      equal(await store.load(alice), v2);
      equal(await store.readHistory(alice), [msg('hi'), reply('hello'), msg('more')]);
      equal(await store.readHistory(alice, 1, 2), [reply('hello')]);
      equal(await store.readHistory(alice, 2), [msg('more')]);
      equal(await store.readHistory(alice, 3), []);
      await rejects(store.readHistory(alice, -1), TypeError);
      equal(await store.readJournal(alice, 'run-1', 1), entry('run-1', 1));
      assert.equal(await store.readJournal(alice, 'run-1', 2), undefined);
      equal(await store.readRunJournal(alice, 'run-1'), [entry('run-1', 0), entry('run-1', 1)]);
      equal(await store.readRunJournal(alice, 'run-2'), [entry('run-2', 0)]);
      equal(await store.readRunJournal(alice, 'run'), []);
      const v3 = await store.save(commitOn(v2, [reply('done')], [entry('run-1', 2)]));
      assert.equal(v3.version, 3);
      assert.equal((await store.readHistory(alice)).length, 4);
      assert.equal((await store.readRunJournal(alice, 'run-1')).length, 3);
    });

    test('rejects a stale version, a missing session and a wrong historyLength, writing nothing', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(newSession('s1', 'alice'));
      const v2 = await store.save(commitOn(v1, [msg('a')]));
      await rejects(store.save(commitOn(v1, [msg('b')])), {
        name: 'SessionConflictError',
        expectedVersion: 1,
        actualVersion: 2,
      });
      await rejects(store.load({ sessionId: 'nope', userId: 'alice' }), SessionNotFoundError);
      await rejects(store.save(commitOn({ ...v1, sessionId: 'nope' }, [])), SessionNotFoundError);
      const bad = { ...commitOn(v2, [msg('c')]), items: [] };
      await rejects(store.save(bad), TypeError);
      equal(await store.load(alice), v2);
      equal(await store.readHistory(alice), [msg('a')]);
    });

    test('lets exactly one of concurrent saves from the same version win', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(newSession('s1', 'alice'));
      const results = await Promise.allSettled(
        ['first', 'second', 'third'].map((text) => store.save(commitOn(v1, [msg(text)]))),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(lost.length, 2);
      for (const r of lost) assert.ok(r.reason instanceof SessionConflictError);
      matches(await store.load(alice), { version: 2, historyLength: 1 });
      assert.equal((await store.readHistory(alice)).length, 1);
    });

    test('partitions by userId: the anonymous bucket, "" and look-alike ids never meet', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('secret'),
      ]);
      await store.save(commitOn(v1, [], [entry('r', 0)]));
      const bob = { sessionId: 's1', userId: 'bob' };
      await rejects(store.load(bob), SessionNotFoundError);
      await rejects(store.readHistory(bob), SessionNotFoundError);
      assert.equal(await store.readJournal(bob, 'r', 0), undefined);
      equal(await store.readRunJournal(bob, 'r'), []);
      await rejects(store.purge(bob), SessionNotFoundError);
      equal(await store.list({ userId: 'bob' }), {
        sessions: [],
        nextCursor: undefined,
      });
      await store.create(newSession('s2'));
      await store.create(newSession('s3', ''));
      for (const userId of ['a', 'u:a', 'x!s!a', 'undefined', 'null']) {
        await rejects(store.load({ sessionId: 's2', userId }), SessionNotFoundError);
      }
      await rejects(store.load({ sessionId: 's2', userId: '' }), SessionNotFoundError);
      await rejects(store.load({ sessionId: 's3' }), SessionNotFoundError);
      matches(await store.load({ sessionId: 's3', userId: '' }), {
        userId: '',
      });
      matches(await store.list({ userId: '' }), {
        sessions: [{ sessionId: 's3', userId: '' }],
      });
      const anonymous = await store.list();
      equal(
        anonymous.sessions.map((s) => s.sessionId),
        ['s2'],
      );
    });

    test('lists one user with paging and a status filter, following saves', async (harness) => {
      const { store } = harness;
      const statuses = ['active', 'completed', 'active', 'failed', 'active'] as const;
      for (const [i, status] of statuses.entries()) {
        await store.create(newSession(`c${i}`, 'carol', status));
      }
      await store.create(newSession('d0', 'dave'));
      const page1 = await store.list({ userId: 'carol', limit: 2 });
      equal(
        page1.sessions.map((s) => s.sessionId),
        ['c0', 'c1'],
      );
      assert.ok(!('snapshot' in page1.sessions[0]!), 'a listing holds no snapshot');
      const page2 = await store.list({ userId: 'carol', limit: 2, cursor: page1.nextCursor });
      equal(
        page2.sessions.map((s) => s.sessionId),
        ['c2', 'c3'],
      );
      const page3 = await store.list({ userId: 'carol', limit: 2, cursor: page2.nextCursor });
      matches(page3, { sessions: [{ sessionId: 'c4' }] });
      assert.equal(page3.nextCursor, undefined);
      const active1 = await store.list({ userId: 'carol', status: 'active', limit: 2 });
      equal(
        active1.sessions.map((s) => s.sessionId),
        ['c0', 'c2'],
      );
      const active2 = await store.list({
        userId: 'carol',
        status: 'active',
        limit: 2,
        cursor: active1.nextCursor,
      });
      matches(active2, { sessions: [{ sessionId: 'c4' }], nextCursor: undefined });
      await rejects(store.list({ userId: 'carol', limit: 0 }), TypeError);
      const c1 = await store.load({ sessionId: 'c1', userId: 'carol' });
      await store.save(commitOn(c1, [msg('x')], [], { status: 'active' }));
      const active = await store.list({ userId: 'carol', status: 'active' });
      const listed = active.sessions.map((s) => [s.sessionId, s.version, s.historyLength]);
      assert.ok(
        listed.some((row) => isEqual(row, ['c1', 2, 1])),
        'c1 is listed at version 2',
      );
    });

    test('keeps a tombstone: a late write after the delete loses', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(newSession('s1', 'alice'));
      const v2 = await store.save(commitOn(v1, [msg('a')]));
      // The delete, and a writer still holding version 2 and one still holding version 1.
      const deleted = await store.save(commitOn(v2, [], [], { status: 'deleted' }));
      await rejects(store.save(commitOn(v2, [msg('late')])), {
        name: 'SessionConflictError',
        actualVersion: 3,
      });
      await rejects(store.save(commitOn(v1, [msg('later')])), SessionConflictError);
      // Even a writer that read the tombstone cannot revive it.
      await rejects(store.save(commitOn(deleted, [msg('revive')], [], { status: 'active' })), {
        name: 'SessionConflictError',
        expectedVersion: 3,
      });
      equal(await store.load(alice), deleted);
      equal(await store.readHistory(alice), [msg('a')]);
      matches(await store.list({ userId: 'alice', status: 'deleted' }), {
        sessions: [{ sessionId: 's1', version: 3 }],
      });
    });

    test('purges the record, listing, history and journal', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      await store.save(commitOn(v1, [reply('yo')], [entry('r1', 0), entry('r2', 3)]));
      await store.create(newSession('s10', 'alice'));
      await store.purge(alice);
      await rejects(store.load(alice), SessionNotFoundError);
      await rejects(store.readHistory(alice), SessionNotFoundError);
      assert.equal(await store.readJournal(alice, 'r1', 0), undefined);
      equal(await store.readRunJournal(alice, 'r2'), []);
      const listed = await store.list({ userId: 'alice' });
      equal(
        listed.sessions.map((s) => s.sessionId),
        ['s10'],
      );
      await rejects(store.purge(alice), SessionNotFoundError);
      matches(await store.create(newSession('s1', 'alice')), { version: 1 });
      equal(await store.readHistory(alice), []);
    });

    test('accumulates per-user usage totals in the same write', async (harness) => {
      const { store } = harness;
      let rec = await store.create(newSession('s1', 'alice'));
      rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 10, 0.5) }));
      rec = await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(2, 5, 0.25) }));
      await store.save(commitOn(rec, [msg('c')]));
      const other = await store.create(newSession('s2', 'alice'));
      await store.save(commitOn(other, [], [], { userUsageDelta: usage(1, 1, 1) }));
      const anon = await store.create(newSession('s3'));
      await store.save(commitOn(anon, [], [], { userUsageDelta: usage(7, 7, 7) }));
      equal(await store.userUsage('alice'), usage(4, 16, 1.75));
      equal(await store.userUsage(undefined), usage(7, 7, 7));
      equal(await store.userUsage('bob'), emptyTotals());
      matches(await store.loadForUpdate(alice), {
        userUsage: usage(4, 16, 1.75),
      });
      // A conflicting save adds nothing.
      await rejects(
        store.save(commitOn(other, [], [], { userUsageDelta: usage(9, 9, 9) })),
        SessionConflictError,
      );
      equal(await store.userUsage('alice'), usage(4, 16, 1.75));
    });

    test('adds costs up without float noise (0.1 + 0.2 is 0.3)', async (harness) => {
      const { store } = harness;
      let rec = await store.create(newSession('s1', 'alice'));
      rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 1, 0.1) }));
      await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(1, 1, 0.2) }));
      assert.equal(String((await store.userUsage('alice')).costUsd), '0.3');
    });

    test('reports damage on read as a typed error naming the key, and overwrites nothing', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 2 }, [
        msg('hi'),
        reply('hello'),
      ]);
      await harness.damageHistoryItem(alice, 1, '{"type":"message","role":"robot"}');
      await rejects(store.readHistory(alice, 0, 2), {
        name: 'InvalidSessionRecordError',
        key: historyKey(alice, 1),
      });
      equal(await store.readHistory(alice, 0, 1), [msg('hi')]);
      for (const garbage of ['{not json', '#00000000{"schemaVersion":2}']) {
        await harness.damageRecord(alice, garbage);
        const loading = store.load(alice);
        await rejects(loading, InvalidSessionRecordError);
        await rejects(loading, { key: recordKey(alice) });
        await rejects(store.loadForUpdate(alice), InvalidSessionRecordError);
        await rejects(store.save(commitOn(v1, [msg('x')])), InvalidSessionRecordError);
      }
      // A corrupt session can still be purged.
      await store.purge(alice);
      await rejects(store.load(alice), SessionNotFoundError);
    });

    test('loadForUpdate given a known record reads another save, and damage, as without it', async (harness) => {
      const { store } = harness;
      await store.create(newSession('s1', 'alice'));
      const { record: known } = await store.loadForUpdate(alice);
      matches(await store.loadForUpdate(alice, known), { record: known });
      // Another writer (here: the same store, from the known version) moves the session on.
      const saved = await store.save(commitOn(known, [msg('hi')]));
      const after = await store.loadForUpdate(alice, known);
      assert.notEqual(after.record, known);
      matches(after.record, { version: 2, historyLength: 1 });
      equal(after.record, await store.load(alice));
      // The stored value damaged under a record this store saved: the typed error, as always.
      await harness.damageRecord(alice, '{not json');
      await rejects(store.loadForUpdate(alice, saved), {
        name: 'InvalidSessionRecordError',
        key: recordKey(alice),
      });
    });
  });
}
