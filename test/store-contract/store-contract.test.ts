import { join } from 'node:path';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { deadlineKey, historyKey, recordKey } from '../../src/persistence/session-keys.js';
import { encodeStored } from '../../src/persistence/session-schemas.js';
import { describe, it } from 'vitest';
import { storeContract, type StoreUnderTest } from '../../src/store.js';
import { tempFolder } from '../helpers/temp-store.js';
import { rm } from 'node:fs/promises';

function kvHarness(store: KvSessionStore, cleanup: () => Promise<void>): StoreUnderTest {
  const put = (key: string, value: string) => store.backend.write([{ type: 'put', key, value }]);
  return {
    store,
    damageRecord: (key, text) => put(recordKey(key), text),
    damageHistoryItem: (key, position, text) => put(historyKey(key, position), text),
    damageAudit: async (userId, text) => {
      const prefix = `a!u:${userId}!`;
      for await (const key of store.backend.keys({ gte: prefix, lt: `${prefix}~` })) {
        await put(key, text);
      }
    },
    fileDeadline: (key, deadline) => {
      const indexKey = deadlineKey(key, deadline);
      const value = { sessionId: key.sessionId, userId: key.userId, deadline };
      return put(indexKey, encodeStored(indexKey, value));
    },
    cleanup,
  };
}

storeContract(
  { describe, it },
  {
    name: 'MemorySessionStore',
    open: async (clock) => {
      const store = new MemorySessionStore({ clock });
      return kvHarness(store, () => store.close());
    },
    messageInbox: true,
    sessionWatches: true,
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
    messageInbox: true,
    sessionWatches: true,
  },
);
