import { strict as assert } from 'node:assert';
import type { MemoryListQuery, MemoryStore } from '../persistence/memory-store.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { contractMemory, memoryOf } from './memory-contract-fixtures.js';

/** Every id of the pages of `query`, following the cursors, and how many pages. */
async function allIds(
  store: MemoryStore,
  query: MemoryListQuery,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.listMemories({ ...query, cursor });
    ids.push(...page.memories.map((m) => m.id));
    cursor = page.nextCursor;
    pages += 1;
    assert.ok(pages <= 100, 'the cursors end');
  } while (cursor !== undefined);
  return { ids, pages };
}

/**
 * The memory contract's pages and scopes: `listMemories` newest first (in the order they were
 * stored) with an opaque cursor, of one resource or kind; `memoryResources` the user's own
 * scope first, then by resource name, with their counts and whether they hold working memory.
 */
export function memoryListContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: memory pages`, () => {
    test('pages a user’s memories newest first, of one resource or kind, never another user’s', async (h) => {
      const store = memoryOf(name, h.store);
      const stored = [
        contractMemory('m1', 0, { userId: 'alice', kind: 'message', role: 'user', at: 10 }),
        contractMemory('m2', 1, { userId: 'alice', resource: 'p1', at: 5 }),
        contractMemory('m3', 2, { userId: 'alice', resource: 'p1', kind: 'message', at: 30 }),
        contractMemory('m4', 3, { userId: 'alice', resource: 'p2', at: 20 }),
        contractMemory('m5', 0, { userId: 'alice', at: 1 }),
        contractMemory('m6', 1, { userId: 'alice', resource: 'p1', at: 2 }),
        contractMemory('m7', 2, { userId: 'alice', kind: 'message', position: 4, at: 3 }),
      ];
      // One write each: the order they were stored, whatever their times say.
      for (const memory of stored) await store.putMemories([memory]);
      await store.putMemories([contractMemory('b1', 0, { userId: 'bob' })]);
      const newest = ['m7', 'm6', 'm5', 'm4', 'm3', 'm2', 'm1'];
      equal(await allIds(store, { userId: 'alice', limit: 3 }), { ids: newest, pages: 3 });
      equal(await allIds(store, { userId: 'alice', limit: 7 }), { ids: newest, pages: 1 });
      const first = await store.listMemories({ userId: 'alice', limit: 2 });
      equal(
        first.memories.map((m) => m.id),
        ['m7', 'm6'],
      );
      assert.equal(typeof first.nextCursor, 'string');
      equal(first.memories[0], {
        id: 'm7',
        userId: 'alice',
        kind: 'message',
        text: 'text of m7',
        position: 4,
        at: 3,
        model: 'm',
        dimensions: 4,
      });
      equal((await allIds(store, { userId: 'alice', resource: 'p1', limit: 2 })).ids, [
        'm6',
        'm3',
        'm2',
      ]);
      equal((await allIds(store, { userId: 'alice', kind: 'message', limit: 1 })).ids, [
        'm7',
        'm3',
        'm1',
      ]);
      equal((await allIds(store, { userId: 'alice', resource: 'p1', kind: 'message' })).ids, [
        'm3',
      ]);
      equal((await allIds(store, { userId: 'alice', resource: 'p3' })).ids, []);
      equal((await allIds(store, { userId: 'bob', limit: 1 })).ids, ['b1']);
      equal((await allIds(store, {})).ids, []);
      equal(await store.listMemories({ userId: 'carol' }), { memories: [], nextCursor: undefined });
      await rejects(store.listMemories({ userId: 'alice', limit: 0 }), TypeError);
      await rejects(store.listMemories({ userId: 'alice', limit: 1001 }), TypeError);
    });

    test('lists a user’s scopes: their own first, then by resource name', async (h) => {
      const store = memoryOf(name, h.store);
      await store.putMemories([
        contractMemory('z1', 0, { userId: 'alice', resource: 'zeta' }),
        contractMemory('z2', 1, { userId: 'alice', resource: 'zeta' }),
        contractMemory('a1', 0, { userId: 'alice', resource: 'alpha' }),
        contractMemory('own', 0, { userId: 'alice' }),
        contractMemory('b1', 0, { userId: 'bob', resource: 'bobs' }),
      ]);
      await store.writeWorkingMemory(
        { userId: 'alice', resource: 'beta' },
        { content: 'notes', expectedVersion: 0, opId: 'o1', at: 1 },
      );
      await store.writeWorkingMemory(
        { userId: 'alice', resource: 'zeta' },
        { content: 'notes', expectedVersion: 0, opId: 'o1', at: 1 },
      );
      equal(await store.memoryResources({ userId: 'alice' }), [
        { memories: 1, workingMemory: false },
        { resource: 'alpha', memories: 1, workingMemory: false },
        { resource: 'beta', memories: 0, workingMemory: true },
        { resource: 'zeta', memories: 2, workingMemory: true },
      ]);
      equal(await store.memoryResources({ userId: 'bob' }), [
        { resource: 'bobs', memories: 1, workingMemory: false },
      ]);
      equal(await store.memoryResources({}), []);
      await store.deleteMemories({ userId: 'alice' }, ['a1', 'z1']);
      equal(await store.memoryResources({ userId: 'alice' }), [
        { memories: 1, workingMemory: false },
        { resource: 'beta', memories: 0, workingMemory: true },
        { resource: 'zeta', memories: 1, workingMemory: true },
      ]);
    });
  });
}
