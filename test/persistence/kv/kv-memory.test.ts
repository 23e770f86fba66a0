import { afterEach, describe, expect, it } from 'vitest';
import type { KvRange } from '../../../src/persistence/key-range.js';
import { MemoryBackend } from '../../../src/persistence/kv/backends/memory-backend.js';
import { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import { LevelSessionStore } from '../../../src/persistence/kv/level-session-store.js';
import { vectorKey } from '../../../src/persistence/kv/memory-keys.js';
import { MemorySessionStore } from '../../../src/persistence/kv/memory-session-store.js';
import type { MemoryInput } from '../../../src/persistence/memory-store.js';
import { contractMemory } from '../../../src/store-contract/memory-contract.js';
import { TempStores } from '../../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const search = { userId: 'alice', model: 'm', vector: [1, 0, 0, 0], topK: 10 };
const ids = (found: { memory: { id: string } }[]) => found.map((f) => f.memory.id);

/**
 * A memory backend whose reads of a scope's vectors take their snapshot, then wait until the
 * test lets them go on: the writes made meanwhile land after the snapshot.
 */
class HeldVectorReads extends MemoryBackend {
  held: { taken: Promise<void>; release: () => void } | undefined;

  /** Holds the next read of vectors after its snapshot (or, `beforeSnapshot`, before it). */
  hold(beforeSnapshot = false): { taken: Promise<void>; release: () => void } {
    let taken!: () => void;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = { taken: new Promise<void>((resolve) => (taken = resolve)), release };
    this.held = held;
    this.gate = { taken, gate, beforeSnapshot };
    return held;
  }

  private gate: { taken: () => void; gate: Promise<void>; beforeSnapshot: boolean } | undefined;

  override async *iterate(range: KvRange): AsyncIterable<[string, string]> {
    const gate = range.gte.includes('!v!') ? this.gate : undefined;
    if (!gate) {
      yield* super.iterate(range);
      return;
    }
    this.gate = undefined;
    if (gate.beforeSnapshot) {
      gate.taken();
      await gate.gate;
      yield* super.iterate(range);
      return;
    }
    const entries: [string, string][] = [];
    for await (const entry of super.iterate(range)) entries.push(entry);
    gate.taken();
    await gate.gate;
    yield* entries;
  }
}

describe('memory in the key-value stores', () => {
  it('outlives the store on LevelDB: memories, pages, searches, scopes and working memory', async () => {
    const temp = await temps.open();
    await temp.store.putMemories([
      contractMemory('a', 0, { userId: 'alice' }),
      contractMemory('b', 1, { userId: 'alice', resource: 'p1' }),
    ]);
    await temp.store.writeWorkingMemory(
      { userId: 'alice' },
      { content: { likes: 'tea' }, expectedVersion: 0, opId: 'o1', at: 3 },
    );
    expect(ids(await temp.store.searchMemories(search))).toEqual(['a', 'b']);
    await temp.store.close();

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    expect(ids(await store.searchMemories(search))).toEqual(['a', 'b']);
    // The sequence goes on: a memory stored now is the newest.
    await store.putMemories([contractMemory('c', 2, { userId: 'alice' })]);
    expect((await store.listMemories({ userId: 'alice' })).memories.map((m) => m.id)).toEqual([
      'c',
      'b',
      'a',
    ]);
    // The dimension stays the user's: a vector of another is refused.
    await expect(
      store.putMemories([contractMemory('d', 0, { userId: 'alice', vector: [1, 2] })]),
    ).rejects.toMatchObject({ code: 'INVALID_MEMORY', memoryId: 'd' });
    expect(await store.readWorkingMemory({ userId: 'alice' })).toEqual({
      content: { likes: 'tea' },
      version: 1,
      updatedAt: 3,
    });
    await expect(
      store.writeWorkingMemory(
        { userId: 'alice' },
        { content: 'x', expectedVersion: 0, opId: 'o2', at: 4 },
      ),
    ).rejects.toMatchObject({ code: 'MEMORY_CONFLICT' });
    expect(
      (
        await store.writeWorkingMemory(
          { userId: 'alice' },
          { content: 'x', expectedVersion: 0, opId: 'o1', at: 4 },
        )
      ).applied,
    ).toBe(false);
    expect(await store.memoryResources({ userId: 'alice' })).toEqual([
      { memories: 2, workingMemory: true },
      { resource: 'p1', memories: 1, workingMemory: false },
    ]);
  });

  it('a search whose scope loads while writes land finds what is stored once they have', async () => {
    const backend = new HeldVectorReads();
    const store = new KvSessionStore(backend);
    await store.putMemories([
      contractMemory('a', 0, { userId: 'alice' }),
      contractMemory('b', 1, { userId: 'alice' }),
    ]);
    const held = backend.hold();
    const searching = store.searchMemories(search);
    await held.taken;
    // After the load's snapshot: a memory nearer than any, and a delete.
    await store.putMemories([contractMemory('c', 0, { userId: 'alice', vector: [1, 0, 0, 0] })]);
    expect(await store.deleteMemories({ userId: 'alice' }, ['a'])).toBe(1);
    held.release();
    expect(ids(await searching)).toEqual(['c', 'b']);
    expect(ids(await store.searchMemories(search))).toEqual(['c', 'b']);
  });

  it('writes queued together see each other: a forget between two puts keeps the later one', async () => {
    const store = new MemorySessionStore();
    await store.putMemories([contractMemory('old', 0, { userId: 'alice' })]);
    expect(ids(await store.searchMemories(search))).toEqual(['old']);
    const [, forgot, put] = await Promise.all([
      store.putMemories([contractMemory('before', 1, { userId: 'alice', resource: 'p1' })]),
      store.forgetMemories({ userId: 'alice' }),
      store.putMemories([contractMemory('after', 2, { userId: 'alice', vector: [1, 2, 3] })]),
    ]);
    expect(forgot).toEqual({ memories: 2, workingMemories: 0 });
    expect(put).toEqual({ written: 1 });
    expect((await store.listMemories({ userId: 'alice' })).memories.map((m) => m.id)).toEqual([
      'after',
    ]);
    expect(await store.memoryResources({ userId: 'alice' })).toEqual([
      { memories: 1, workingMemory: false },
    ]);
    expect(ids(await store.searchMemories({ ...search, vector: [1, 2, 3] }))).toEqual(['after']);
  });

  it('keeps ids, resources, models and sessions of any characters apart', async () => {
    const store = new MemorySessionStore();
    const odd: MemoryInput[] = [
      contractMemory(`fact:s!1:${'é'.repeat(380)}`, 0, {
        userId: 'u!1',
        resource: 'p!1/ü',
        model: 'm!2',
        sessionId: 's!1%',
      }),
      contractMemory('fact:s!1', 0, { userId: 'u!1', resource: 'p!1', model: 'm!2' }),
      contractMemory('%21', 0, { userId: 'u!1', resource: 'p%211', model: 'm!2' }),
    ];
    await store.putMemories(odd);
    const found = await store.searchMemories({ ...search, userId: 'u!1', model: 'm!2' });
    expect(found.map((f) => f.memory.id).sort()).toEqual(odd.map((m) => m.id).sort());
    expect(
      await store.searchMemories({
        ...search,
        userId: 'u!1',
        model: 'm!2',
        excludeSessionId: 's!1%',
      }),
    ).toHaveLength(2);
    expect(
      ids(await store.searchMemories({ ...search, userId: 'u!1', model: 'm!2', resource: 'p!1' })),
    ).toEqual(['fact:s!1']);
    expect((await store.memoryResources({ userId: 'u!1' })).map((r) => r.resource)).toEqual([
      'p!1',
      'p!1/ü',
      'p%211',
    ]);
    expect(await store.forgetMemories({ userId: 'u!1', resource: 'p!1/ü' })).toEqual({
      memories: 1,
      workingMemories: 0,
    });
    expect((await store.listMemories({ userId: 'u!1' })).memories.map((m) => m.id).sort()).toEqual([
      '%21',
      'fact:s!1',
    ]);
    await expect(
      store.putMemories([contractMemory('lone\ud800', 0, { userId: 'alice' })]),
    ).rejects.toMatchObject({ code: 'INVALID_MEMORY' });
  });

  it('a damaged vector is a typed error naming its key, every time, and changes nothing', async () => {
    const store = new MemorySessionStore();
    await store.putMemories([
      contractMemory('a', 0, { userId: 'alice' }),
      contractMemory('b', 1, { userId: 'alice' }),
    ]);
    const key = vectorKey('alice', undefined, 'm', 'b');
    const stored = (await store.backend.get(key))!;
    await store.backend.write([{ type: 'put', key, value: stored.slice(0, -8) }]);
    for (let i = 0; i < 2; i++) {
      await expect(store.searchMemories(search)).rejects.toMatchObject({
        code: 'INVALID_SESSION_RECORD',
        key,
      });
    }
    expect((await store.listMemories({ userId: 'alice' })).memories).toHaveLength(2);
    await store.backend.write([{ type: 'put', key, value: stored }]);
    expect(ids(await store.searchMemories(search))).toEqual(['a', 'b']);
  });

  it('a model whose memories all went takes another dimension, in a searched scope too', async () => {
    const store = new MemorySessionStore();
    await store.putMemories([contractMemory('four', 0, { userId: 'alice' })]);
    expect(ids(await store.searchMemories(search))).toEqual(['four']);
    expect(await store.deleteMemories({ userId: 'alice' }, ['four'])).toBe(1);
    await store.putMemories([contractMemory('three', 0, { userId: 'alice', vector: [1, 0, 0] })]);
    expect(ids(await store.searchMemories({ ...search, vector: [1, 0, 0] }))).toEqual(['three']);
    expect(await store.searchMemories(search)).toEqual([]);
  });

  it('a scope read while its model changes dimension is read again, not called damaged', async () => {
    const backend = new HeldVectorReads();
    const store = new KvSessionStore(backend);
    await store.putMemories([contractMemory('four', 0, { userId: 'alice' })]);
    const held = backend.hold(true);
    const searching = store.searchMemories(search);
    await held.taken;
    // After the search read the model's dimension, before it reads the vectors.
    await store.deleteMemories({ userId: 'alice' }, ['four']);
    await store.putMemories([contractMemory('three', 0, { userId: 'alice', vector: [1, 0, 0] })]);
    held.release();
    expect(await searching).toEqual([]);
    expect(ids(await store.searchMemories({ ...search, vector: [1, 0, 0] }))).toEqual(['three']);
  });

  it('refuses a cursor it did not give', async () => {
    const store = new MemorySessionStore();
    for (const cursor of ['', 'next', 'm1.x', 'm1.1234567890123']) {
      await expect(store.listMemories({ userId: 'alice', cursor })).rejects.toThrow(TypeError);
    }
  });
});
