import { strict as assert } from 'node:assert';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { contractMemory, memoryOf as memoryOfStore } from './memory-contract-fixtures.js';
import { memoryListContract } from './memory-list-contract.js';
import { memorySearchContract } from './memory-search-contract.js';
import { workingMemoryContract } from './working-memory-contract.js';

export { contractMemory };

/**
 * The memory part of the store contract: memories kept and found by similarity, pages,
 * working memory versioned and once per op, erased by scope, every path partitioned by user.
 * Runs when the options say the store keeps memory. (That memory outlives the store object is
 * each store's own test: the harness does not reopen a store.)
 */
export function memoryContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const memoryOf = (store: Parameters<typeof memoryOfStore>[1]) => memoryOfStore(name, store);
  memorySearchContract(tests, options);
  memoryListContract(tests, options);
  workingMemoryContract(tests, options);
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

    storeTest(
      tests,
      open,
      'forgets what is there and counts it; the ids and dimensions are free again',
      async (h) => {
        const store = memoryOf(h.store);
        equal(await store.forgetMemories({ userId: 'alice' }), { memories: 0, workingMemories: 0 });
        equal(await store.forgetMemories({ userId: 'alice', resource: 'p1' }), {
          memories: 0,
          workingMemories: 0,
        });
        await store.putMemories([
          contractMemory('a', 0, { userId: 'alice' }),
          contractMemory('b', 1, { userId: 'alice', resource: 'p1' }),
          contractMemory('c', 2, { userId: 'alice', resource: 'p2' }),
        ]);
        await store.putMemories([contractMemory('a', 0, { userId: 'bob' })]);
        await store.putMemories([contractMemory('anon', 0)]);
        for (const scope of [{ userId: 'alice' }, { userId: 'alice', resource: 'p2' }, {}]) {
          await store.writeWorkingMemory(scope, {
            content: 'x',
            expectedVersion: 0,
            opId: 'o',
            at: 1,
          });
        }
        const search = { userId: 'alice', model: 'm', vector: [1, 0, 0, 0], topK: 5 };
        equal((await store.searchMemories(search)).length, 3);
        equal(await store.forgetMemories({ userId: 'alice', resource: 'p2' }), {
          memories: 1,
          workingMemories: 1,
        });
        equal((await store.searchMemories(search)).map((m) => m.memory.id).sort(), ['a', 'b']);
        equal(await store.searchMemories({ ...search, resource: 'p2' }), []);
        equal(await store.readWorkingMemory({ userId: 'alice', resource: 'p2' }), undefined);
        equal(await store.forgetMemories({ userId: 'alice' }), { memories: 2, workingMemories: 1 });
        equal(await store.searchMemories(search), []);
        equal(await store.memoryResources({ userId: 'alice' }), []);
        equal(await store.readWorkingMemory({ userId: 'alice' }), undefined);
        // Nothing of another user's, nor of the anonymous bucket, went.
        equal((await store.getMemories({ userId: 'bob' }, ['a'])).length, 1);
        equal((await store.getMemories({}, ['anon'])).length, 1);
        equal((await store.readWorkingMemory({}))?.content, 'x');
        // Forgotten ids and dimensions are free again.
        equal(
          await store.putMemories([
            contractMemory('a', 0, { userId: 'alice', vector: [1, 2, 3] }),
            contractMemory('c', 0, { userId: 'alice', resource: 'p2', vector: [3, 2, 1] }),
          ]),
          { written: 2 },
        );
        equal(
          (await store.searchMemories({ ...search, vector: [1, 2, 3] })).map((m) => m.memory.id),
          ['a', 'c'],
        );
        await rejects(store.forgetMemories({ userId: 'alice', resource: '' }), TypeError);
      },
    );

    storeTest(
      tests,
      open,
      'a damaged memory is a typed error naming its key; the others read on',
      async (h) => {
        if (!h.damageMemory) return; // the harness cannot reach a memory's stored text
        const store = memoryOf(h.store);
        await store.putMemories([
          contractMemory('hurt', 0, { userId: 'alice' }),
          contractMemory('fine', 1, { userId: 'alice' }),
        ]);
        await store.putMemories([contractMemory('hurt', 0, { userId: 'bob' })]);
        await h.damageMemory('alice', 'hurt', '{"id":"hurt","kind":"fact"');
        const error = await rejects(store.getMemories({ userId: 'alice' }, ['hurt']), {
          code: 'INVALID_SESSION_RECORD',
        });
        assert.ok(typeof (error as { key?: unknown }).key === 'string');
        await rejects(store.listMemories({ userId: 'alice' }), { code: 'INVALID_SESSION_RECORD' });
        equal((await store.getMemories({ userId: 'alice' }, ['fine'])).length, 1);
        equal((await store.listMemories({ userId: 'bob' })).memories.length, 1);
        // A forget erases it all the same.
        equal(await store.forgetMemories({ userId: 'alice' }), { memories: 2, workingMemories: 0 });
        equal(await store.listMemories({ userId: 'alice' }), {
          memories: [],
          nextCursor: undefined,
        });
      },
    );
  });
}
