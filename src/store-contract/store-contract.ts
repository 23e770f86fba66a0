import type { StoreCapability } from '../persistence/store-supports.js';
import { auditContract } from './audit-contract.js';
import {
  claimedSupports,
  type ContractTests,
  type StoreContractOptions,
} from './contract-harness.js';
import { deadlineContract } from './deadline-contract.js';
import { inboxContract } from './inbox-contract.js';
import { leaseContract, leaseReadContract } from './lease-contract.js';
import { memoryContract } from './memory-contract.js';
import { scheduleContract } from './schedule-contract.js';
import { manifestContract } from './manifest-contract.js';
import { orderContract } from './order-contract.js';
import { messageContract, queuedSessionsContract } from './message-contract.js';
import { sessionStoreContract } from './session-store-contract.js';
import { watchContract } from './watch-contract.js';
import { workflowContract } from './workflow-contract.js';

type ContractPart = (tests: ContractTests, options: StoreContractOptions) => void;

/** What every store passes: `STORE_CONTRACT.required`, and its manifest told right. */
const REQUIRED: readonly ContractPart[] = [
  manifestContract,
  auditContract,
  sessionStoreContract,
  orderContract,
  workflowContract,
];

/** The tests of each optional capability (`STORE_CONTRACT.capabilities`), one part each. */
const CAPABILITIES: { readonly [C in StoreCapability]: ContractPart } = {
  leases: leaseContract,
  leaseReads: leaseReadContract,
  deadlineIndex: deadlineContract,
  decisionInbox: inboxContract,
  messageInbox: messageContract,
  queuedSessions: queuedSessionsContract,
  sessionWatches: watchContract,
  memory: memoryContract,
  schedules: scheduleContract,
};

/**
 * The SessionStore contract (what `STORE-CONTRACT.md` asks of a store) as a test suite any
 * store runs from its own tests, the ones agentstate ships (memory, LevelDB, PostgreSQL) and a
 * third party's alike: the required tests, and the tests of each optional capability the store
 * claims (`supports`). It defines its tests through the caller's runner and asserts with
 * `node:assert`:
 *
 * @example
 * import { describe, it } from 'vitest';
 * import { storeContract } from 'agentstate-runtime/store';
 *
 * storeContract({ describe, it }, {
 *   name: 'RedisSessionStore',
 *   supports: { leases: true, leaseReads: true },
 *   open: async (clock) => {
 *     const store = await RedisSessionStore.open({ url, clock });
 *     return { store, damageRecord, damageHistoryItem, damageAudit, cleanup };
 *   },
 * });
 */
export function storeContract(tests: ContractTests, options: StoreContractOptions): void {
  for (const part of REQUIRED) part(tests, options);
  const claimed = claimedSupports(options);
  for (const [capability, part] of Object.entries(CAPABILITIES)) {
    if (claimed[capability as StoreCapability]) part(tests, options);
  }
}
