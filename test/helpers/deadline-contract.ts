import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import type { SessionRecord, SessionStore } from '../../src/persistence/session-store.js';
import type { DeadlineEntry } from '../../src/persistence/approval-deadlines.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import type { MakeStore, StoreHarness } from './store-contract.js';
import { commitOn, newSession } from './store-fixtures.js';

type IndexedStore = SessionStore &
  Required<Pick<SessionStore, 'dueApprovals' | 'dropStaleDeadline'>>;

/**
 * The approval-deadline index part of the store contract (what `runtime.startScheduler()`
 * needs), run alike against every store: memory, LevelDB and PostgreSQL.
 */
export function describeDeadlineContract(name: string, makeStore: MakeStore): void {
  describe(`${name}: approval-deadline index`, () => {
    let harness: StoreHarness;
    let store: IndexedStore;
    beforeEach(async () => {
      harness = await makeStore(new FakeClock());
      const s = harness.store;
      if (!s.dueApprovals || !s.dropStaleDeadline)
        throw new Error(`${name} keeps no deadline index`);
      store = s as IndexedStore;
    });
    afterEach(async () => harness.cleanup());

    const withDeadline = (record: SessionRecord, approvalDeadline: number | undefined) => ({
      ...commitOn(record, []),
      record: { ...commitOn(record, []).record, approvalDeadline },
    });
    const due = (until: number, limit = 10, after?: string) =>
      store.dueApprovals({ until, limit, after });
    const keysOf = (page: { due: DeadlineEntry[] }) => page.due.map((e) => e.key);

    it('files, moves and removes a session under its deadline, across owners, in deadline order', async () => {
      const a = await store.create({ ...newSession('s', 'alice'), approvalDeadline: 5_000 });
      const b = await store.create(newSession('s', 'bob'));
      await store.create({ ...newSession('s'), approvalDeadline: 9_000 });
      expect(keysOf(await due(10_000))).toEqual([
        { sessionId: 's', userId: 'alice' },
        { sessionId: 's', userId: undefined },
      ]);
      const b2 = await store.save(withDeadline(b, 7_000));
      const page = await due(7_000);
      expect(page.due.map((e) => [e.key.userId, e.deadline])).toEqual([
        ['alice', 5_000],
        ['bob', 7_000],
      ]);
      expect(page).toMatchObject({ damaged: [], cursor: undefined, next: 9_000 });
      // Moved by the same write as the record; removed when the deadline goes.
      await store.save(withDeadline(a, 8_000));
      expect((await due(7_999)).due.map((e) => e.key.userId)).toEqual(['bob']);
      await store.save(withDeadline(b2, undefined));
      expect((await due(8_000)).due.map((e) => [e.key.userId, e.deadline])).toEqual([
        ['alice', 8_000],
      ]);
      await store.purge({ sessionId: 's', userId: 'alice' });
      expect(await due(10_000)).toMatchObject({ due: [{ deadline: 9_000 }], next: undefined });
      expect(await due(1_000)).toMatchObject({ due: [], cursor: undefined, next: 9_000 });
    });

    it('pages with a cursor and drops only stale entries', async () => {
      for (const id of ['a', 'b', 'c']) {
        await store.create({ ...newSession(id, 'alice'), approvalDeadline: 1_000 });
      }
      await store.create({ ...newSession('a', 'bob'), approvalDeadline: 1_500 });
      const first = await due(2_000, 2);
      expect(first.due.map((e) => e.key.sessionId)).toEqual(['a', 'b']);
      expect(first.cursor).toBe(first.due[1]?.indexKey);
      const rest = await due(2_000, 2, first.cursor);
      expect(rest.due.map((e) => [e.key.userId, e.key.sessionId])).toEqual([
        ['alice', 'c'],
        ['bob', 'a'],
      ]);
      expect(rest.cursor).toBeUndefined();
      const [one] = (await due(2_000, 1, first.due[0]!.indexKey)).due;
      expect(one?.key).toEqual({ sessionId: 'b', userId: 'alice' });

      const entryB = first.due[1]!;
      // b's record still holds its deadline: not stale, kept.
      await expect(store.dropStaleDeadline(entryB)).resolves.toBe(false);
      const b = await store.load({ sessionId: 'b', userId: 'alice' });
      await store.save(withDeadline(b, undefined));
      await expect(store.dropStaleDeadline(entryB)).resolves.toBe(true);
      // An entry the record does not hold (left behind by a hand edit, say) is stale.
      await harness.fileDeadline({ sessionId: 'b', userId: 'alice' }, 1_000);
      expect((await due(2_000)).due.map((e) => e.key.sessionId)).toContain('b');
      await expect(store.dropStaleDeadline(entryB)).resolves.toBe(true);
      expect((await due(2_000)).due.map((e) => e.key.sessionId)).toEqual(['a', 'c', 'a']);
      await expect(store.load({ sessionId: 'b', userId: 'alice' })).resolves.toMatchObject({
        version: 2,
        approvalDeadline: undefined,
      });
    });

    it('refuses a deadline that is not an epoch-ms integer, writing nothing', async () => {
      await expect(
        store.create({ ...newSession('s', 'alice'), approvalDeadline: 1.5 }),
      ).rejects.toBeInstanceOf(TypeError);
      await expect(store.load({ sessionId: 's', userId: 'alice' })).rejects.toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
      await expect(due(10, 0)).rejects.toBeInstanceOf(TypeError);
    });
  });
}
