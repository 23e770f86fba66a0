import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import {
  InvalidSessionRecordError,
  SessionConflictError,
} from '../../src/errors/session-errors.js';
import type { AuditEntry } from '../../src/persistence/audit-log.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { commitOn, entry, msg, newSession } from './store-fixtures.js';
import { allAuditEntries } from './audit-pages.js';
import type { MakeStore, StoreHarness } from './store-contract.js';

/** An audit entry of `userId`'s session `sessionId` at `at`. */
export const audited = (
  userId: string | undefined,
  sessionId: string,
  at: number,
  id: string,
  kind: AuditEntry['kind'] = 'session',
): AuditEntry => ({
  id,
  userId,
  sessionId,
  runId: undefined,
  at,
  kind,
  summary: `${kind} ${id}`,
  ...(kind === 'session' ? { action: id } : {}),
});

/** Every entry of one user, page by page. */
const everything = (store: SessionStore, userId: string | undefined, limit = 2) =>
  allAuditEntries((q) => store.readAudit(q), userId, limit);

const ids = (entries: AuditEntry[]) => entries.map((e) => e.id);

/** The audit-log part of the store contract (STORE-CONTRACT.md, "Audit log"). */
export function describeAuditContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: audit log contract`, () => {
    let harness: StoreHarness;
    let store: SessionStore;

    beforeEach(async () => {
      harness = await makeStore(new FakeClock());
      store = harness.store;
    });
    afterEach(async () => harness.cleanup());

    it('writes entries with create, save and purge, atomically with the step', async () => {
      const v1 = await store.create(
        newSession('s1', 'alice'),
        [],
        [audited('alice', 's1', 5, 'c')],
      );
      const v2 = await store.save(
        commitOn(v1, [msg('hi')], [entry('r1', 0)], {
          audit: [audited('alice', 's1', 6, 'x', 'tool_call'), audited('alice', 's1', 6, 'y')],
        }),
      );
      // A refused save (stale version) writes none of its entries.
      await expect(
        store.save(commitOn(v1, [], [], { audit: [audited('alice', 's1', 7, 'lost')] })),
      ).rejects.toBeInstanceOf(SessionConflictError);
      expect(ids(await everything(store, 'alice'))).toEqual(['c', 'x', 'y']);
      await store.save(commitOn(v2, [], [], { audit: [audited('alice', 's1', 8, 'z')] }));
      await store.purge({ sessionId: 's1', userId: 'alice' }, [audited('alice', 's1', 9, 'p')]);
      // Entries outlive their session.
      expect(ids(await everything(store, 'alice'))).toEqual(['c', 'x', 'y', 'z', 'p']);
      await expect(
        store.save(
          commitOn(v1, [], [], { audit: [{ ...audited('alice', 's1', 1, 'bad'), at: -1 }] }),
        ),
      ).rejects.toBeInstanceOf(TypeError);
    });

    it('queries one user by session, kind and time range, paged, in time order', async () => {
      const a = await store.create(
        newSession('s1', 'alice'),
        [],
        [audited('alice', 's1', 10, 'a')],
      );
      await store.create(
        newSession('s2', 'alice'),
        [],
        [audited('alice', 's2', 20, 'b', 'denial')],
      );
      await store.save(
        commitOn(a, [], [], {
          audit: [audited('alice', 's1', 30, 'c', 'tool_call'), audited('alice', 's1', 40, 'd')],
        }),
      );
      await store.create(newSession('s1', 'bob'), [], [audited('bob', 's1', 15, 'bob1')]);
      await store.create(newSession('s1'), [], [audited(undefined, 's1', 15, 'anon')]);
      expect(ids(await everything(store, 'alice', 1))).toEqual(['a', 'b', 'c', 'd']);
      expect(ids(await everything(store, 'bob'))).toEqual(['bob1']);
      expect(ids(await everything(store, undefined))).toEqual(['anon']);
      expect(ids(await everything(store, 'carol'))).toEqual([]);
      const q = (extra: object) => store.readAudit({ userId: 'alice', ...extra });
      expect(ids((await q({ sessionId: 's1' })).entries)).toEqual(['a', 'c', 'd']);
      expect(ids((await q({ kind: ['denial', 'tool_call'] })).entries)).toEqual(['b', 'c']);
      expect(ids((await q({ from: 20, to: 40 })).entries)).toEqual(['b', 'c']);
      const first = await q({ sessionId: 's1', limit: 2 });
      expect(ids(first.entries)).toEqual(['a', 'c']);
      expect(ids((await q({ sessionId: 's1', cursor: first.nextCursor })).entries)).toEqual(['d']);
      for (const e of await everything(store, 'alice')) expect(e.userId).toBe('alice');
      await expect(store.readAudit({ userId: 'alice', limit: 0 })).rejects.toBeInstanceOf(
        TypeError,
      );
    });

    it('reports a damaged entry as InvalidSessionRecordError naming its key', async () => {
      await store.create(newSession('s1', 'alice'), [], [audited('alice', 's1', 10, 'a')]);
      await harness.damageAudit('alice', '{"not":"sealed"}');
      const error = await store.readAudit({ userId: 'alice' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidSessionRecordError);
      expect((error as InvalidSessionRecordError).message).toContain('a!u:alice!');
    });
  });
}
