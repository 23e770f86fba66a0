import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LevelBackend } from '../../src/persistence/kv/backends/level-backend.js';
import { MemoryBackend } from '../../src/persistence/kv/backends/memory-backend.js';
import { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { emptyTotals } from '../../src/persistence/session-store.js';
import { storeContract } from '../../src/store.js';
import { newSession } from '../../src/store-contract/contract-fixtures.js';
import { KV_SUPPORTS, kvHarness } from '../helpers/kv-harness.js';
import { tempFolder } from '../helpers/temp-store.js';

/**
 * The KV store's caches are a layer (`written-cache.ts`): the plain store (`cache: false`)
 * keeps the whole contract on its own, over either backend, as the cached one does
 * (test/persistence/store-contract.test.ts runs the shipped, cached stores).
 */
storeContract(
  { describe, it },
  {
    name: 'KvSessionStore, plain, memory backend',
    open: async (clock) => {
      const store = new KvSessionStore(new MemoryBackend(), { clock, cache: false });
      return kvHarness(store, () => store.close());
    },
    supports: KV_SUPPORTS,
  },
);

storeContract(
  { describe, it },
  {
    name: 'KvSessionStore, plain, LevelDB backend',
    open: async (clock) => {
      const folder = await tempFolder();
      const store = new KvSessionStore(new LevelBackend(join(folder, 'db')), {
        clock,
        cache: false,
      });
      return kvHarness(store, async () => {
        await store.close();
        await rm(folder, { recursive: true, force: true });
      });
    },
    supports: KV_SUPPORTS,
  },
);

describe('the cache layer over the KV store', () => {
  it('hands a known record back as is when cached; the plain store reads and checks it anew', async () => {
    const key = { sessionId: 's1', userId: 'alice' };
    for (const cache of [true, false]) {
      const store = new KvSessionStore(new MemoryBackend(), { cache });
      try {
        // The record the store handed out when it wrote it, as a session cache keeps it.
        const known = await store.create(newSession('s1', 'alice'));
        const again = await store.loadForUpdate(key, known);
        expect(again).toEqual({ record: known, userUsage: emptyTotals() });
        expect(again.record === known).toBe(cache);
      } finally {
        await store.close();
      }
    }
  });
});
