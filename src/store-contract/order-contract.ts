import { strict as assert } from 'node:assert';
import { LIST_ORDERS, type ListOrder } from '../persistence/entries/list-order.js';
import type {
  ListSessionsQuery,
  SessionInfo,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, newSession, usage } from './contract-fixtures.js';

/** The value each order sorts by, the largest first (none for `id`). */
const valueOf = (order: ListOrder, s: SessionInfo): number => {
  switch (order) {
    case 'id':
      return 0;
    case 'updated':
      return s.updatedAt;
    case 'created':
      return s.createdAt;
    case 'usage':
      return s.usage.inputTokens + s.usage.outputTokens;
  }
};

/** What a listing in `order` must return: waiting first, then the value descending, then id. */
export const expected = (order: ListOrder, sessions: SessionInfo[]): string[] =>
  [...sessions]
    .sort(
      (a, b) =>
        Number(b.awaitingApproval === true) - Number(a.awaitingApproval === true) ||
        valueOf(order, b) - valueOf(order, a) ||
        (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0),
    )
    .map((s) => s.sessionId);

/** The ids of every page of a listing (`query.limit` at a time, following cursors), joined. */
export async function allPages(
  store: SessionStore,
  query: Omit<ListSessionsQuery, 'cursor'> & { limit: number },
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.list({ ...query, cursor });
    assert.ok(page.sessions.length <= query.limit, 'a page holds at most its limit');
    ids.push(...page.sessions.map((s) => s.sessionId));
    if (page.nextCursor === undefined) return ids;
    cursor = page.nextCursor;
  }
  throw new Error('the listing never ends');
}

/**
 * The list orders part of the store contract (what the inspector's list needs): every order of
 * `list({ order })` holds across pages, the sessions awaiting an approval first, and each save
 * and purge moves a session in every order at once.
 */
export function orderContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  storeTest(
    tests,
    open,
    `${name}: every list order holds across pages, sessions awaiting an approval first`,
    async ({ store }) => {
      const records: SessionRecord[] = [];
      for (let i = 0; i < 23; i++) {
        records.push(
          await store.create({
            ...newSession(`s${String(i).padStart(2, '0')}`, 'alice'),
            createdAt: 1_000 + ((i * 7) % 11),
            updatedAt: 5_000 + ((i * 5) % 13),
            usage: usage(1, (i * 3) % 8, 0),
            awaitingApproval: i % 9 === 4,
          }),
        );
      }
      // Another owner's waiting session is never listed for alice.
      await store.create({ ...newSession('s99', 'bob'), awaitingApproval: true });
      // A save moves a session in every order: s20 starts waiting, s04 stops.
      const s20 = records[20]!;
      await store.save({
        ...commitOn(s20, []),
        record: { ...commitOn(s20, []).record, awaitingApproval: true, updatedAt: 9_000 },
      });
      const s04 = records[4]!;
      await store.save({
        ...commitOn(s04, []),
        record: { ...commitOn(s04, []).record, awaitingApproval: false },
      });
      await store.purge({ sessionId: 's13', userId: 'alice' });
      const listed = await allPages(store, { userId: 'alice', order: 'id', limit: 100 });
      const infos = (await store.list({ userId: 'alice', limit: 100 })).sessions;
      assert.equal(infos.length, 22);
      for (const order of LIST_ORDERS) {
        const want = expected(order, infos);
        assert.equal(want[0], 's20', 'the session awaiting an approval comes first');
        for (const limit of [1, 4, 7, 22, 50]) {
          equal(
            await allPages(store, { userId: 'alice', order, limit }),
            want,
            `${order} by ${limit}`,
          );
        }
      }
      assert.ok(!listed.includes('s99') && !listed.includes('s13'));
      equal(await allPages(store, { userId: 'bob', order: 'updated', limit: 1 }), ['s99']);
    },
  );

  storeTest(
    tests,
    open,
    `${name}: a status filter keeps the order across pages`,
    async ({ store }) => {
      for (let i = 0; i < 12; i++) {
        await store.create({
          ...newSession(`s${String(i).padStart(2, '0')}`, 'alice', i % 3 ? 'active' : 'completed'),
          updatedAt: 2_000 + i,
          awaitingApproval: i === 7,
        });
      }
      const active = (await store.list({ userId: 'alice', status: 'active', limit: 100 })).sessions;
      const query = { userId: 'alice', order: 'updated', limit: 3, status: 'active' } as const;
      equal(await allPages(store, query), expected('updated', active));
      equal((await allPages(store, query))[0], 's07');
    },
  );

  storeTest(
    tests,
    open,
    `${name}: an unknown order or another order's cursor is a TypeError`,
    async ({ store }) => {
      for (let i = 0; i < 3; i++) await store.create(newSession(`s${i}`, 'alice'));
      const page = await store.list({ userId: 'alice', order: 'updated', limit: 1 });
      assert.ok(page.nextCursor !== undefined);
      await rejects(
        store.list({ userId: 'alice', order: 'id', limit: 1, cursor: page.nextCursor }),
        TypeError,
      );
      await rejects(
        store.list({ userId: 'alice', order: 'size' as ListOrder, limit: 1 }),
        TypeError,
      );
    },
  );
}
