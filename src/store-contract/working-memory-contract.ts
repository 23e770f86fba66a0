import { strict as assert } from 'node:assert';
import type { MemoryScope, WorkingMemoryWrite } from '../persistence/memory-store.js';
import { APPLIED_OPS } from '../persistence/memory-checks.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { memoryOf } from './memory-contract-fixtures.js';

/**
 * The memory contract's working memory: one document per scope, written at the version its
 * writer read (of writers racing at one version, exactly one wins), once per op id among its
 * latest `APPLIED_OPS`, plain JSON, each scope and user apart.
 */
export function workingMemoryContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: working memory`, () => {
    test('counts versions up, keeps objects as JSON, each scope and user apart', async (h) => {
      const store = memoryOf(name, h.store);
      const own = { userId: 'alice' };
      const write = (scope: MemoryScope, w: Partial<WorkingMemoryWrite>) =>
        store.writeWorkingMemory(scope, {
          content: 'x',
          expectedVersion: 0,
          opId: 'o',
          at: 1,
          ...w,
        });
      equal(await write(own, { content: 'first', opId: 'a' }), {
        content: 'first',
        version: 1,
        updatedAt: 1,
        applied: true,
      });
      const content = { name: 'Ada', likes: ['tea'], address: { city: 'Paris' } };
      equal(await write(own, { content, expectedVersion: 1, opId: 'b', at: 2 }), {
        content,
        version: 2,
        updatedAt: 2,
        applied: true,
      });
      equal(await store.readWorkingMemory(own), { content, version: 2, updatedAt: 2 });
      equal(await store.readWorkingMemory({ userId: 'alice', resource: 'p1' }), undefined);
      equal(await store.readWorkingMemory({ userId: 'bob' }), undefined);
      equal(await store.readWorkingMemory({}), undefined);
      await write({}, { content: 'anonymous' });
      await write({ userId: 'bob' }, { content: 'bob' });
      await write({ userId: 'alice', resource: 'p1' }, { content: 'p1' });
      equal((await store.readWorkingMemory({}))?.content, 'anonymous');
      equal((await store.readWorkingMemory({ userId: 'bob' }))?.content, 'bob');
      equal((await store.readWorkingMemory({ userId: 'alice', resource: 'p1' }))?.content, 'p1');
      equal((await store.readWorkingMemory(own))?.content, content);
    });

    test('takes an op once among its latest ops; a stale version changes nothing', async (h) => {
      const store = memoryOf(name, h.store);
      const scope = { userId: 'alice', resource: 'p1' };
      let version = 0;
      const write = async (opId: string, expectedVersion = version) => {
        const written = await store.writeWorkingMemory(scope, {
          content: `by ${opId}`,
          expectedVersion,
          opId,
          at: version + 1,
        });
        version = written.version;
        return written;
      };
      await write('first');
      await write('second');
      // A retry of a taken op answers the stored document, at whatever version it read.
      equal(await write('first', 0), {
        content: 'by second',
        version: 2,
        updatedAt: 2,
        applied: false,
      });
      await rejects(write('third', 1), {
        code: 'MEMORY_CONFLICT',
        expectedVersion: 1,
        actualVersion: 2,
      });
      await rejects(write('third', 3), { code: 'MEMORY_CONFLICT' });
      equal(await store.readWorkingMemory(scope), {
        content: 'by second',
        version: 2,
        updatedAt: 2,
      });
      for (let i = 0; i < APPLIED_OPS - 1; i++) await write(`op${i}`);
      equal((await write('second')).applied, false);
      await write('one more');
      // `second` is now older than the latest ops: a write of it is applied again.
      equal((await write('second')).applied, true);
      equal(version, APPLIED_OPS + 3);
    });

    test('of writers racing at one version, exactly one wins; the others conflict', async (h) => {
      const store = memoryOf(name, h.store);
      const scope = { userId: 'alice' };
      await store.writeWorkingMemory(scope, {
        content: 'v1',
        expectedVersion: 0,
        opId: 'v1',
        at: 1,
      });
      const writers = ['a', 'b', 'c', 'd', 'e'];
      const settled = await Promise.allSettled(
        writers.map((opId) =>
          store.writeWorkingMemory(scope, { content: opId, expectedVersion: 1, opId, at: 2 }),
        ),
      );
      const won = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [writers[i]!] : []));
      equal(won.length, 1);
      for (const s of settled) {
        if (s.status === 'rejected') {
          equal((s.reason as { code?: unknown }).code, 'MEMORY_CONFLICT');
        }
      }
      equal(await store.readWorkingMemory(scope), { content: won[0], version: 2, updatedAt: 2 });
    });

    test('refuses bad writes: nothing is stored', async (h) => {
      const store = memoryOf(name, h.store);
      const scope = { userId: 'alice' };
      const good: WorkingMemoryWrite = { content: 'x', expectedVersion: 0, opId: 'o', at: 1 };
      for (const bad of [
        { content: 42 },
        { content: ['list'] },
        { content: null },
        { expectedVersion: -1 },
        { expectedVersion: 0.5 },
        { opId: '' },
        { at: -1 },
      ]) {
        await rejects(store.writeWorkingMemory(scope, { ...good, ...bad }), TypeError);
      }
      await rejects(store.writeWorkingMemory({ userId: 'alice', resource: '' }, good), TypeError);
      await rejects(store.readWorkingMemory({ userId: '' }), TypeError);
      equal(await store.readWorkingMemory(scope), undefined);
      assert.equal((await store.writeWorkingMemory(scope, good)).version, 1);
    });
  });
}
