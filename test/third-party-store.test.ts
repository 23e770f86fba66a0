import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { storeContract, type StoreUnderTest } from 'agentstate/store';
import { MapDeadlineIndex } from './helpers/map-deadline-index.js';
import { ownerMapKey, sessionMapKey } from './helpers/map-keys.js';
import { MapSessionStore } from './helpers/map-session-store.js';
import { specifiers } from './helpers/layering-check.js';

/**
 * A store written outside agentstate (test/helpers/map-session-store.ts, from `agentstate`
 * and `agentstate/store` only) proves itself with the exported contract suite, the way a
 * Redis, SQLite or DynamoDB store would from its own tests.
 */
storeContract(
  { describe, it },
  {
    name: 'MapSessionStore (third party)',
    open: async (clock): Promise<StoreUnderTest> => {
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
          const log = tables.audit.get(ownerMapKey(userId)) ?? new Map();
          for (const key of log.keys()) log.set(key, text);
        },
        fileDeadline: async (key, deadline) => {
          new MapDeadlineIndex(tables.deadlines).file(key, deadline);
        },
        cleanup: () => store.close(),
      };
    },
  },
);

const ALLOWED =
  /^(agentstate|agentstate\/store|vitest|node:.+|\.\/(helpers\/)?map-[a-z-]+\.js|\.\/helpers\/layering-check\.js)$/;

describe('the third-party store', () => {
  it('imports agentstate through agentstate/store and the root only', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const files = [
      fileURLToPath(import.meta.url),
      ...readdirSync(join(here, 'helpers'))
        .filter((name) => name.startsWith('map-'))
        .map((name) => join(here, 'helpers', name)),
    ];
    const outside = files.flatMap((file) =>
      specifiers(file)
        // the store's own files, and (in this file) the import scanner
        .filter((s) => !ALLOWED.test(s))
        .map((s) => `${file}: ${s}`),
    );
    expect(files.length).toBeGreaterThan(5);
    expect(outside).toEqual([]);
  });
});
