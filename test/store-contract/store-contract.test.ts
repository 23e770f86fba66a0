import { join } from 'node:path';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { describe, it } from 'vitest';
import { storeContract } from '../../src/store.js';
import { KV_SUPPORTS, kvHarness } from '../helpers/kv-harness.js';
import { tempFolder } from '../helpers/temp-store.js';
import { rm } from 'node:fs/promises';

storeContract(
  { describe, it },
  {
    name: 'MemorySessionStore',
    open: async (clock) => {
      const store = new MemorySessionStore({ clock });
      return kvHarness(store, () => store.close());
    },
    supports: KV_SUPPORTS,
  },
);

storeContract(
  { describe, it },
  {
    name: 'LevelSessionStore',
    open: async (clock) => {
      const folder = await tempFolder();
      const store = await LevelSessionStore.open({ path: join(folder, 'db'), clock });
      return kvHarness(store, async () => {
        await store.close();
        await rm(folder, { recursive: true, force: true });
      });
    },
    supports: KV_SUPPORTS,
  },
);
