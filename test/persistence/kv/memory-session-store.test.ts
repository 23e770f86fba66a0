import { describe, it, expect } from 'vitest';
import { MemoryBackend } from '../../../src/persistence/kv/backends/memory-backend.js';
import { MemorySessionStore } from '../../../src/persistence/kv/memory-session-store.js';
import { runSessionStoreContract } from './session-store.contract.js';

runSessionStoreContract('MemorySessionStore', async (options) => {
  const store = new MemorySessionStore(options);
  return { store, cleanup: () => store.close() };
});

describe('MemoryBackend', () => {
  it('iterates ranges in key order, with limit and reverse', async () => {
    const backend = new MemoryBackend();
    await backend.write(
      ['b', 'a', 'd', 'c', 'e'].map((key) => ({ type: 'put', key, value: key.toUpperCase() })),
    );
    await backend.write([{ type: 'del', key: 'c' }]);
    const read = async (range: Parameters<MemoryBackend['iterate']>[0]): Promise<string[]> => {
      const keys: string[] = [];
      for await (const [key] of backend.iterate(range)) keys.push(key);
      return keys;
    };
    expect(await read({ gte: 'b', lt: 'e' })).toEqual(['b', 'd']);
    expect(await read({ gte: '', lt: 'z', limit: 2 })).toEqual(['a', 'b']);
    expect(await read({ gte: '', lt: 'z', reverse: true, limit: 2 })).toEqual(['e', 'd']);
    expect(await read({ gte: 'x', lt: 'z' })).toEqual([]);
    await expect(backend.getMany(['a', 'c'])).resolves.toEqual(['A', undefined]);
    expect(backend.stats()).toEqual({ batches: 2, bytesWritten: 10 });
  });

  it('keeps ranges in key order across puts, deletes and re-puts between range reads', async () => {
    // New keys are merged into the sorted index at the next range read: a seeded mix of writes
    // (new keys, overwrites, deletes of merged and of not yet merged keys, re-puts) and reads
    // must always read what a plain sorted model holds.
    const backend = new MemoryBackend();
    const model = new Map<string, string>();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const keyOf = (n: number): string => `k${String(n).padStart(3, '0')}`;
    for (let round = 0; round < 200; round++) {
      const ops = Array.from({ length: 1 + random(4) }, (_, i) => {
        const key = keyOf(random(60));
        return random(3) === 0
          ? { type: 'del' as const, key }
          : { type: 'put' as const, key, value: `${round}-${i}` };
      });
      await backend.write(ops);
      for (const op of ops) {
        if (op.type === 'put') model.set(op.key, op.value);
        else model.delete(op.key);
      }
      if (random(3) !== 0) continue;
      const [a, b] = [keyOf(random(60)), keyOf(random(60))].sort();
      const read: [string, string][] = [];
      for await (const entry of backend.iterate({ gte: a!, lt: b! })) read.push(entry);
      const expected = [...model].filter(([k]) => k >= a! && k < b!).sort();
      expect(read).toEqual(expected);
    }
    const all: string[] = [];
    for await (const key of backend.keys({ gte: '', lt: 'z' })) all.push(key);
    expect(all).toEqual([...model.keys()].sort());
  });
});
