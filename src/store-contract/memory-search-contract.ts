import { strict as assert } from 'node:assert';
import type { MemorySearch } from '../persistence/memory-store.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { contractMemory, memoryOf } from './memory-contract-fixtures.js';

/**
 * The memory contract's searches and reads by id: one resource or the whole user, one model and
 * dimension, `minScore`, `topK`, `excludeSessionId`, `kinds`, best first; `getMemories` and
 * `deleteMemories` never reach another user's memory, whatever ids they are given.
 */
export function memorySearchContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: memory search`, () => {
    test('searches one resource or the whole user, best first, by model, minScore, topK, session and kind', async (h) => {
      const store = memoryOf(name, h.store);
      await store.putMemories([
        contractMemory('own', 0, {
          userId: 'alice',
          kind: 'message',
          role: 'user',
          sessionId: 's1',
        }),
        contractMemory('p1', 0, { userId: 'alice', resource: 'p1', sessionId: 's2' }),
        contractMemory('p2', 3, { userId: 'alice', resource: 'p2' }),
        contractMemory('far', 1, { userId: 'alice', resource: 'p2' }),
        contractMemory('other', 0, { userId: 'alice', model: 'other' }),
      ]);
      const query: MemorySearch = { userId: 'alice', model: 'm', vector: [1, 0, 0, 0], topK: 10 };
      const ids = async (extra: Partial<MemorySearch>) =>
        (await store.searchMemories({ ...query, ...extra })).map((m) => m.memory.id);
      const all = await store.searchMemories(query);
      equal(all.map((m) => m.memory.id).slice(2), ['p2', 'far']);
      equal(
        all
          .map((m) => m.memory.id)
          .slice(0, 2)
          .sort(),
        ['own', 'p1'],
      );
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.score >= all[i]!.score);
      assert.ok(Math.abs(all[0]!.score - 1 / Math.sqrt(1.01)) < 1e-4, 'cosine similarity');
      equal(await ids({ resource: 'p1' }), ['p1']);
      equal(await ids({ resource: 'p2' }), ['p2', 'far']);
      equal(await ids({ resource: 'none' }), []);
      equal((await ids({ topK: 1 })).length, 1);
      equal(await ids({ minScore: 0.5, excludeSessionId: 's1' }), ['p1']);
      equal(await ids({ kinds: ['message'] }), ['own']);
      equal(await ids({ kinds: ['fact'], minScore: 0.05 }), ['p1', 'p2']);
      equal(await ids({ model: 'other' }), ['other']);
      // Only memories of the query's dimension compare.
      equal(await ids({ vector: [1, 0, 0] }), []);
      equal(await ids({ userId: 'bob' }), []);
      equal(await ids({ userId: undefined }), []);
      const [best] = await store.searchMemories({ ...query, resource: 'p1' });
      equal(best!.memory, {
        id: 'p1',
        userId: 'alice',
        resource: 'p1',
        kind: 'fact',
        text: 'text of p1',
        sessionId: 's2',
        at: 1,
        model: 'm',
        dimensions: 4,
      });
    });

    test('a search sees the writes and deletes made since the last one', async (h) => {
      const store = memoryOf(name, h.store);
      const query = { userId: 'alice', model: 'm', vector: [0, 0, 1, 0], topK: 2 };
      await store.putMemories([contractMemory('a', 0, { userId: 'alice' })]);
      equal(
        (await store.searchMemories(query)).map((m) => m.memory.id),
        ['a'],
      );
      await store.putMemories([contractMemory('near', 2, { userId: 'alice' })]);
      equal(
        (await store.searchMemories(query)).map((m) => m.memory.id),
        ['near', 'a'],
      );
      equal(await store.deleteMemories({ userId: 'alice' }, ['near']), 1);
      equal(
        (await store.searchMemories(query)).map((m) => m.memory.id),
        ['a'],
      );
      equal(await store.putMemories([contractMemory('near', 2, { userId: 'alice' })]), {
        written: 1,
      });
      equal(
        (await store.searchMemories(query)).map((m) => m.memory.id),
        ['near', 'a'],
      );
    });

    test('gets and deletes by id only the user’s own memories', async (h) => {
      const store = memoryOf(name, h.store);
      await store.putMemories([
        contractMemory('a1', 0, { userId: 'alice' }),
        contractMemory('a2', 1, { userId: 'alice', resource: 'p1' }),
        contractMemory('same', 2, { userId: 'alice' }),
      ]);
      await store.putMemories([
        contractMemory('b1', 0, { userId: 'bob' }),
        contractMemory('same', 3, { userId: 'bob', text: 'bob’s' }),
      ]);
      await store.putMemories([contractMemory('anon', 0)]);
      equal(
        (await store.getMemories({ userId: 'alice' }, ['a2', 'missing', 'b1', 'a1'])).map(
          (m) => m.id,
        ),
        ['a2', 'a1'],
      );
      equal(await store.getMemories({ userId: 'bob' }, ['a1', 'a2', 'anon']), []);
      equal(await store.getMemories({}, ['a1', 'b1']), []);
      equal(
        (await store.getMemories({}, ['anon'])).map((m) => m.userId ?? null),
        [null],
      );
      equal((await store.getMemories({ userId: 'bob' }, ['same']))[0]!.text, 'bob’s');
      equal(await store.deleteMemories({ userId: 'bob' }, ['a1', 'a2', 'same', 'anon']), 1);
      equal(await store.deleteMemories({}, ['a1']), 0);
      equal((await store.getMemories({ userId: 'alice' }, ['same']))[0]!.text, 'text of same');
      equal(await store.deleteMemories({ userId: 'alice' }, ['a1', 'a1', 'nope']), 1);
      equal((await store.listMemories({ userId: 'alice' })).memories.map((m) => m.id).sort(), [
        'a2',
        'same',
      ]);
      equal(
        (await store.listMemories({ userId: 'bob' })).memories.map((m) => m.id),
        ['b1'],
      );
      await rejects(store.getMemories({ userId: 'alice' }, 'a1' as unknown as string[]), TypeError);
    });

    test('refuses a bad memory or search whole: nothing is stored', async (h) => {
      const store = memoryOf(name, h.store);
      await store.putMemories([contractMemory('kept', 0, { userId: 'alice' })]);
      const bad = [
        contractMemory('', 0, { userId: 'alice' }),
        contractMemory('empty', 0, { userId: 'alice', text: '' }),
        contractMemory('kind', 0, { userId: 'alice', kind: 'note' as 'fact' }),
        contractMemory('zeros', 0, { userId: 'alice', vector: [0, 0, 0, 0] }),
        contractMemory('inf', 0, { userId: 'alice', vector: [1, Infinity, 0, 0] }),
        contractMemory('at', 0, { userId: 'alice', at: -1 }),
        contractMemory('x'.repeat(401), 0, { userId: 'alice' }),
      ];
      for (const memory of bad) {
        await rejects(store.putMemories([contractMemory('fine', 1, { userId: 'alice' }), memory]), {
          code: 'INVALID_MEMORY',
        });
      }
      await rejects(
        store.putMemories([
          contractMemory('twice', 0, { userId: 'alice' }),
          contractMemory('twice', 1, { userId: 'alice' }),
        ]),
        { code: 'INVALID_MEMORY' },
      );
      equal(
        (await store.listMemories({ userId: 'alice' })).memories.map((m) => m.id),
        ['kept'],
      );
      const query = { userId: 'alice', model: 'm', vector: [1, 0, 0, 0], topK: 1 };
      await rejects(store.searchMemories({ ...query, topK: 0 }), TypeError);
      await rejects(store.searchMemories({ ...query, minScore: 2 }), TypeError);
      await rejects(store.searchMemories({ ...query, vector: [1, Number.NaN, 0, 0] }), {
        code: 'INVALID_MEMORY',
      });
      equal(await store.putMemories([]), { written: 0 });
      // ids are unique per user: one write may hold the same id for two users
      equal(
        await store.putMemories([
          contractMemory('same', 0, { userId: 'alice' }),
          contractMemory('same', 0, { userId: 'bob' }),
        ]),
        { written: 2 },
      );
    });
  });
}
