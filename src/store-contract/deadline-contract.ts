import { strict as assert } from 'node:assert';
import type { SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { DeadlineEntry } from '../persistence/approval-deadlines.js';
import { supportsCapability, type CapabilityMethods } from '../persistence/store-supports.js';
import { equal, matches, rejects } from './contract-assert.js';
import {
  storeTest,
  type ContractTests,
  type StoreContractOptions,
  type StoreUnderTest,
} from './contract-harness.js';
import { commitOn, newSession, newWorkflow } from './contract-fixtures.js';

type IndexedStore = SessionStore & CapabilityMethods<'deadlineIndex'>;

const withDeadline = (record: SessionRecord, approvalDeadline: number | undefined) => ({
  ...commitOn(record, []),
  record: { ...commitOn(record, []).record, approvalDeadline },
});
const keysOf = (page: { due: DeadlineEntry[] }) => page.due.map((e) => e.key);

/**
 * The approval-deadline index part of the store contract (what `runtime.startScheduler()`
 * needs).
 */
export function deadlineContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const indexed = (harness: StoreUnderTest): IndexedStore => {
    const s = harness.store;
    if (!supportsCapability(s, 'deadlineIndex')) throw new Error(`${name} keeps no deadline index`);
    return s;
  };
  const test = (
    title: string,
    body: (
      store: IndexedStore,
      due: (
        until: number,
        limit?: number,
        after?: string,
      ) => ReturnType<IndexedStore['dueApprovals']>,
      harness: StoreUnderTest,
    ) => Promise<void>,
  ) =>
    storeTest(tests, open, title, (harness) => {
      const store = indexed(harness);
      const due = (until: number, limit = 10, after?: string) =>
        store.dueApprovals({ until, limit, after });
      return body(store, due, harness);
    });
  tests.describe(`${name}: approval-deadline index`, () => {
    test('files, moves and removes a session under its deadline, across owners, in deadline order', async (store, due) => {
      const a = await store.create({ ...newSession('s', 'alice'), approvalDeadline: 5_000 });
      const b = await store.create(newSession('s', 'bob'));
      await store.create({ ...newSession('s'), approvalDeadline: 9_000 });
      equal(keysOf(await due(10_000)), [
        { sessionId: 's', userId: 'alice' },
        { sessionId: 's', userId: undefined },
      ]);
      const b2 = await store.save(withDeadline(b, 7_000));
      const page = await due(7_000);
      equal(
        page.due.map((e) => [e.key.userId, e.deadline]),
        [
          ['alice', 5_000],
          ['bob', 7_000],
        ],
      );
      matches(page, { damaged: [], cursor: undefined, next: 9_000 });
      // Moved by the same write as the record; removed when the deadline goes.
      await store.save(withDeadline(a, 8_000));
      equal(
        (await due(7_999)).due.map((e) => e.key.userId),
        ['bob'],
      );
      await store.save(withDeadline(b2, undefined));
      equal(
        (await due(8_000)).due.map((e) => [e.key.userId, e.deadline]),
        [['alice', 8_000]],
      );
      await store.purge({ sessionId: 's', userId: 'alice' });
      matches(await due(10_000), { due: [{ deadline: 9_000 }], next: undefined });
      matches(await due(1_000), { due: [], cursor: undefined, next: 9_000 });
    });

    test('pages with a cursor and drops only stale entries', async (store, due, harness) => {
      for (const id of ['a', 'b', 'c']) {
        await store.create({ ...newSession(id, 'alice'), approvalDeadline: 1_000 });
      }
      await store.create({ ...newSession('a', 'bob'), approvalDeadline: 1_500 });
      const first = await due(2_000, 2);
      equal(
        first.due.map((e) => e.key.sessionId),
        ['a', 'b'],
      );
      assert.equal(first.cursor, first.due[1]?.indexKey);
      const rest = await due(2_000, 2, first.cursor);
      equal(
        rest.due.map((e) => [e.key.userId, e.key.sessionId]),
        [
          ['alice', 'c'],
          ['bob', 'a'],
        ],
      );
      assert.equal(rest.cursor, undefined);
      const [one] = (await due(2_000, 1, first.due[0]!.indexKey)).due;
      equal(one?.key, { sessionId: 'b', userId: 'alice' });

      const entryB = first.due[1]!;
      // b's record still holds its deadline: not stale, kept.
      assert.equal(await store.dropStaleDeadline(entryB), false);
      const b = await store.load({ sessionId: 'b', userId: 'alice' });
      await store.save(withDeadline(b, undefined));
      assert.equal(await store.dropStaleDeadline(entryB), true);
      // An entry the record does not hold (left behind by a hand edit, say) is stale.
      if (!harness.fileDeadline) throw new Error(`${name}'s harness must give fileDeadline`);
      await harness.fileDeadline({ sessionId: 'b', userId: 'alice' }, 1_000);
      assert.ok((await due(2_000)).due.map((e) => e.key.sessionId).includes('b'));
      assert.equal(await store.dropStaleDeadline(entryB), true);
      equal(
        (await due(2_000)).due.map((e) => e.key.sessionId),
        ['a', 'c', 'a'],
      );
      matches(await store.load({ sessionId: 'b', userId: 'alice' }), {
        version: 2,
        approvalDeadline: undefined,
      });
    });

    test('files a workflow instance under its deadline (its next timer) beside sessions', async (store, due) => {
      // One index for approval deadlines and workflow timers: one scheduler fires both.
      const instance = await store.create({
        ...newWorkflow('o1', 'alice'),
        approvalDeadline: 6_000,
      });
      await store.create({ ...newSession('s', 'alice'), approvalDeadline: 5_000 });
      await store.create({ ...newWorkflow('o1', 'bob'), approvalDeadline: 7_000 });
      equal(
        (await due(10_000)).due.map((e) => [e.key.userId, e.key.sessionId, e.deadline]),
        [
          ['alice', 's', 5_000],
          ['alice', 'workflow:o1', 6_000],
          ['bob', 'workflow:o1', 7_000],
        ],
      );
      // A save moves the instance's entry with its record, and a purge takes it out.
      const moved = await store.save(withDeadline(instance, 8_000));
      equal(
        (await due(7_999)).due.map((e) => e.key.sessionId),
        ['s', 'workflow:o1'],
      );
      matches((await due(8_000)).due[2], { key: { userId: 'alice', sessionId: 'workflow:o1' } });
      assert.equal(moved.approvalDeadline, 8_000);
      await store.purge({ sessionId: 'workflow:o1', userId: 'bob' });
      await store.purge({ sessionId: 'workflow:o1', userId: 'alice' });
      equal(
        (await due(10_000)).due.map((e) => e.key.sessionId),
        ['s'],
      );
    });

    test('refuses a deadline that is not an epoch-ms integer, writing nothing', async (store, due) => {
      await rejects(
        store.create({ ...newSession('s', 'alice'), approvalDeadline: 1.5 }),
        TypeError,
      );
      await rejects(store.load({ sessionId: 's', userId: 'alice' }), {
        code: 'SESSION_NOT_FOUND',
      });
      await rejects(due(10, 0), TypeError);
    });
  });
}
