/**
 * `agentstate-runtime/store`: for store implementers. The SessionStore contract, its required
 * methods and optional capabilities in one place (`STORE_CONTRACT`, a store's `supports`
 * manifest) and their parts (leases, the decision and message inboxes, the approval-deadline
 * index, watches), the record codecs that
 * seal and check what a store keeps, the record migrations, and `storeContract`, the test
 * suite a store runs from its own tests to prove it keeps the contract
 * (`src/persistence/STORE-CONTRACT.md`). App authors need none of it: the root export has
 * `SessionStore` and the types its methods return.
 */

// ---- the contract ----------------------------------------------------------------------------
export {
  emptyTotals,
  type SessionStore,
  type SessionKey,
  type SessionInfo,
  type SessionRecord,
  type SessionStatus,
  type SessionCommit,
  type LoadedSession,
  type JournalEntry,
  type ListSessionsQuery,
  type SessionPage,
  type StoreStats,
  type UsageTotals,
} from './persistence/session-store.js';
export {
  LIST_ORDERS,
  listPosition,
  checkListOrder,
  type ListOrder,
} from './persistence/entries/list-order.js';
export {
  LIST_KINDS,
  kindOf,
  checkListKind,
  type ListKind,
} from './persistence/entries/list-kind.js';
export {
  STORE_CONTRACT,
  STORE_CAPABILITIES,
  storeSupports,
  checkStoreSupports,
  supportsCapability,
  hasLeases,
  hasDecisionInbox,
  hasMessageInbox,
  canWatchSessions,
  type StoreCapability,
  type StoreSupports,
  type StoreManifest,
  type CapabilityMethods,
} from './persistence/store-supports.js';
export type {
  SessionLease,
  SessionLeases,
  StoredLease,
  ExpiredLeaseQuery,
} from './persistence/session-leases.js';
export type {
  DecisionInbox,
  DecisionSubmission,
  SubmittedDecisions,
  DecisionWatch,
} from './persistence/decision-inbox.js';
export type {
  MessageInbox,
  MessageSubmission,
  QueuedMessage,
  QueuedKind,
} from './persistence/message-inbox.js';
export type { SessionWatches } from './persistence/session-watches.js';
export type {
  DeadlineEntry,
  DueApprovalsQuery,
  DueApprovals,
} from './persistence/approval-deadlines.js';
export type {
  ScheduleStore,
  ScheduleRecord,
  ScheduleKey,
  TickClaim,
  ListSchedulesQuery,
  SchedulePage,
  DueSchedulesQuery,
  DueSchedules,
} from './persistence/schedule-store.js';
export type {
  AuditEntry,
  AuditKind,
  AuditVia,
  AuditQuery,
  AuditPage,
} from './persistence/audit-log.js';

// ---- what a store keeps ----------------------------------------------------------------------
export { RecordCodecs, type RecordCodecsOptions } from './persistence/record-codecs.js';
export { CURRENT_SCHEMA_VERSION } from './persistence/session-record-codec.js';
export { RecordMigrationRegistry, type RecordMigration } from './persistence/migrations.js';

// ---- the contract test suite -----------------------------------------------------------------
export { storeContract } from './store-contract/store-contract.js';
export type {
  ContractTests,
  StoreUnderTest,
  OpenStore,
  StoreContractOptions,
} from './store-contract/contract-harness.js';
