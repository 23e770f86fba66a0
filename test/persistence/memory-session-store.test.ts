import { describe, it, expect } from 'vitest';
import { MemoryBackend } from '../../src/persistence/kv/memory-backend.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
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
});
