import type { OpenStore, StoreUnderTest } from 'agentstate-runtime/store';
import { MapDeadlineIndex } from './map-deadline-index.js';
import { ownerMapKey, sessionMapKey } from './map-keys.js';
import { MapSessionStore } from './map-session-store.js';

/** Opens a fresh `MapSessionStore` for the contract suite, with raw access to its maps. */
export const openMapStore: OpenStore = async (clock): Promise<StoreUnderTest> => {
  const store = new MapSessionStore({ clock });
  const { tables } = store;
  return {
    store,
    damageRecord: async (key, text) => {
      tables.records.set(sessionMapKey(key), text);
    },
    damageHistoryItem: async (key, position, text) => {
      tables.history.get(sessionMapKey(key))![position] = text;
    },
    damageAudit: async (userId, text) => {
      const log = tables.audit.get(ownerMapKey(userId)) ?? new Map<string, string>();
      for (const key of log.keys()) log.set(key, text);
    },
    fileDeadline: async (key, deadline) => {
      new MapDeadlineIndex(tables.deadlines).file(key, deadline);
    },
    cleanup: () => store.close(),
  };
};
