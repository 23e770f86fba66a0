import { auditContract } from './audit-contract.js';
import type { ContractTests, StoreContractOptions } from './contract-harness.js';
import { deadlineContract } from './deadline-contract.js';
import { inboxContract } from './inbox-contract.js';
import { leaseContract } from './lease-contract.js';
import { orderContract } from './order-contract.js';
import { messageContract } from './message-contract.js';
import { sessionStoreContract } from './session-store-contract.js';
import { watchContract } from './watch-contract.js';

/**
 * The SessionStore contract (what `STORE-CONTRACT.md` asks of a store) as a test suite any
 * store runs from its own tests, the ones agentstate ships (memory, LevelDB, PostgreSQL) and a
 * third party's alike. It defines its tests through the caller's runner and asserts with
 * `node:assert`:
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { storeContract } from 'agentstate-runtime/store';
 *
 * storeContract({ describe, it }, {
 *   name: 'RedisSessionStore',
 *   open: async (clock) => {
 *     const store = await RedisSessionStore.open({ url, clock });
 *     return { store, damageRecord, damageHistoryItem, damageAudit, fileDeadline, cleanup };
 *   },
 * });
 */
export function storeContract(tests: ContractTests, options: StoreContractOptions): void {
  auditContract(tests, options);
  deadlineContract(tests, options);
  sessionStoreContract(tests, options);
  leaseContract(tests, options);
  orderContract(tests, options);
  if (options.decisionInbox) inboxContract(tests, options);
  if (options.messageInbox) messageContract(tests, options);
  if (options.sessionWatches) watchContract(tests, options);
}
