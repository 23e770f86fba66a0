import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { memoryKey } from '../../src/persistence/kv/memory-keys.js';
import { scheduleKey } from '../../src/persistence/kv/schedule-keys.js';
import { deadlineKey, historyKey, recordKey } from '../../src/persistence/session-keys.js';
import { encodeStored } from '../../src/persistence/session-schemas.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import type { StoreUnderTest } from '../../src/store.js';

/** What the key-value stores claim: every capability but the decision inbox (one process). */
export const KV_SUPPORTS = {
  leases: true,
  leaseReads: true,
  deadlineIndex: true,
  messageInbox: true,
  queuedSessions: true,
  sessionWatches: true,
  memory: true,
  schedules: true,
};

/**
 * A key-value store under the contract suite, with raw access to its backend for the damage
 * tests; `store` is what the suite is handed (the KV store itself, or a store over it).
 */
export function kvHarness(
  kv: KvSessionStore,
  cleanup: () => Promise<void>,
  store: SessionStore = kv,
): StoreUnderTest {
  const put = (key: string, value: string) => kv.backend.write([{ type: 'put', key, value }]);
  return {
    store,
    damageRecord: (key, text) => put(recordKey(key), text),
    damageHistoryItem: (key, position, text) => put(historyKey(key, position), text),
    damageAudit: async (userId, text) => {
      const prefix = `a!u:${userId}!`;
      for await (const key of kv.backend.keys({ gte: prefix, lt: `${prefix}~` })) {
        await put(key, text);
      }
    },
    fileDeadline: (key, deadline) => {
      const indexKey = deadlineKey(key, deadline);
      const value = { sessionId: key.sessionId, userId: key.userId, deadline };
      return put(indexKey, encodeStored(indexKey, value));
    },
    damageMemory: (userId, memoryId, text) => put(memoryKey(userId, memoryId), text),
    damageSchedule: (userId, id, text) => put(scheduleKey({ userId, id }), text),
    cleanup,
  };
}
