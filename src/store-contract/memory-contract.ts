import { strict as assert } from 'node:assert';
import type { MemoryInput, MemoryStore } from '../persistence/memory-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasMemory } from '../persistence/store-supports.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';

/** A memory for the contract's tests: a unit vector along `axis` of 4 dimensions. */
export function contractMemory(
  id: string,
  axis: number,
  extra: Partial<MemoryInput> = {},
): MemoryInput {
  const vector = [0, 0, 0, 0];
  vector[axis % 4] = 1;
  vector[(axis + 1) % 4] = 0.1;
  return { id, kind: 'fact', text: `text of ${id}`, at: 1, model: 'm', vector, ...extra };
}

/**
 * The memory part of the store contract: memories kept and found by similarity, pages,
 * working memory versioned and once per op, erased by scope, every path partitioned by user.
 * Runs when the options say the store keeps memory.
 */
export function memoryContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const memoryOf = (store: SessionStore): SessionStore & MemoryStore => {
    if (!hasMemory(store)) throw new Error(`${name} keeps no memory`);
    return store;
  };
  tests.describe(`${name}: memory`, () => {
    storeTest(
      tests,
      open,
      'finds a user’s memories by similarity, never another user’s',
      async (h) => {
        const store = memoryOf(h.store);
        equal(
          await store.putMemories([
            contractMemory('a1', 0, { userId: 'alice' }),
            contractMemory('a2', 1, { userId: 'alice' }),
            contractMemory('b1', 0, { userId: 'bob' }),
          ]),
          { written: 3 },
        );
        equal(await store.putMemories([contractMemory('a1', 0, { userId: 'alice' })]), {
          written: 0,
        });
        const found = await store.searchMemories({
          userId: 'alice',
          model: 'm',
          vector: [1, 0, 0, 0],
          topK: 5,
        });
        equal(
          found.map((f) => f.memory.id),
          ['a1', 'a2'],
        );
        assert.ok(found[0]!.score > 0.9 && found[0]!.score <= 1.0001);
        equal(found[0]!.memory.userId, 'alice');
        equal(
          (
            await store.searchMemories({ userId: 'bob', model: 'm', vector: [1, 0, 0, 0], topK: 5 })
          ).map((f) => f.memory.id),
          ['b1'],
        );
        equal(await store.searchMemories({ model: 'm', vector: [1, 0, 0, 0], topK: 5 }), []);
      },
    );

    storeTest(tests, open, 'refuses a bad vector whole: nothing is stored', async (h) => {
      const store = memoryOf(h.store);
      await rejects(
        store.putMemories([
          contractMemory('ok', 0, { userId: 'alice' }),
          contractMemory('nan', 0, { userId: 'alice', vector: [1, Number.NaN, 0, 0] }),
        ]),
        { code: 'INVALID_MEMORY' },
      );
      await store.putMemories([contractMemory('four', 0, { userId: 'alice' })]);
      await rejects(
        store.putMemories([contractMemory('three', 0, { userId: 'alice', vector: [1, 0, 0] })]),
        { code: 'INVALID_MEMORY' },
      );
      equal(
        (await store.listMemories({ userId: 'alice' })).memories.map((m) => m.id),
        ['four'],
      );
    });

    storeTest(tests, open, 'keeps working memory by version, once per op', async (h) => {
      const store = memoryOf(h.store);
      const scope = { userId: 'alice', resource: 'p1' };
      equal(await store.readWorkingMemory(scope), undefined);
      const first = await store.writeWorkingMemory(scope, {
        content: 'likes tea',
        expectedVersion: 0,
        opId: 'op1',
        at: 5,
      });
      equal(first, { content: 'likes tea', version: 1, updatedAt: 5, applied: true });
      const again = await store.writeWorkingMemory(scope, {
        content: 'likes tea',
        expectedVersion: 0,
        opId: 'op1',
        at: 6,
      });
      equal(again, { content: 'likes tea', version: 1, updatedAt: 5, applied: false });
      await rejects(
        store.writeWorkingMemory(scope, { content: 'x', expectedVersion: 0, opId: 'op2', at: 7 }),
        { code: 'MEMORY_CONFLICT' },
      );
      equal(await store.readWorkingMemory({ userId: 'bob', resource: 'p1' }), undefined);
      equal(await store.readWorkingMemory({ userId: 'alice' }), undefined);
    });

    storeTest(tests, open, 'forgets a resource, then a whole user, and no one else', async (h) => {
      const store = memoryOf(h.store);
      await store.putMemories([
        contractMemory('r1', 0, { userId: 'alice', resource: 'p1' }),
        contractMemory('r2', 1, { userId: 'alice', resource: 'p2' }),
        contractMemory('own', 2, { userId: 'alice' }),
        contractMemory('bob', 0, { userId: 'bob', resource: 'p1' }),
      ]);
      await store.writeWorkingMemory(
        { userId: 'alice', resource: 'p1' },
        { content: 'x', expectedVersion: 0, opId: 'o', at: 1 },
      );
      equal(await store.forgetMemories({ userId: 'alice', resource: 'p1' }), {
        memories: 1,
        workingMemories: 1,
      });
      equal(
        (await store.memoryResources({ userId: 'alice' })).map((r) => r.resource ?? null),
        [null, 'p2'],
      );
      equal(await store.forgetMemories({ userId: 'alice' }), { memories: 2, workingMemories: 0 });
      equal((await store.listMemories({ userId: 'alice' })).memories, []);
      equal(
        (await store.listMemories({ userId: 'bob' })).memories.map((m) => m.id),
        ['bob'],
      );
    });
  });
}
