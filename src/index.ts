/**
 * The public API of agentstate. Everything else under `src/` is internal and may change
 * without notice; `agentstate/testing` adds the scripted model, the memory store and a fake
 * clock. `test/public-api.test.ts` pins this list.
 */
export * from './errors/index.js';
export * from './core/index.js';
export * from './items/index.js';
export * from './context-window/index.js';
export * from './tools/index.js';
export * from './models/index.js';
export * from './agent/index.js';
export type { RunUsage, InterruptionReason, SubRunSummary } from './machines/run-types.js';
export type { Budget, SessionConfig } from './machines/session-types.js';
export {
  LevelSessionStore,
  DEFAULT_LEVEL_PATH,
  type LevelSessionStoreOptions,
} from './persistence/kv/level-session-store.js';
export type {
  SessionStore,
  SessionKey,
  SessionInfo,
  SessionRecord,
  SessionStatus,
  SessionCommit,
  LoadedSession,
  JournalEntry,
  ListSessionsQuery,
  SessionPage,
  StoreStats,
  UsageTotals,
} from './persistence/session-store.js';
export type {
  DeadlineEntry,
  DueApprovalsQuery,
  DueApprovals,
} from './persistence/approval-deadlines.js';
export type {
  DecisionInbox,
  DecisionSubmission,
  SubmittedDecisions,
  DecisionWatch,
} from './persistence/decision-inbox.js';
export type {
  SessionLease,
  SessionLeases,
  StoredLease,
  ExpiredLeaseQuery,
} from './persistence/session-leases.js';
export type {
  AuditEntry,
  AuditKind,
  AuditVia,
  AuditQuery,
  AuditPage,
} from './persistence/audit-log.js';
export { RecordMigrationRegistry, type RecordMigration } from './persistence/migrations.js';
export { CURRENT_SCHEMA_VERSION } from './persistence/session-record-codec.js';
export type {
  InputGuardrail,
  OutputGuardrail,
  GuardrailVerdict,
  GuardrailInput,
  GuardrailOutput,
} from './guardrails/guardrail.js';
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type { Logger, LogLevel, LogEvent } from './telemetry/logger.js';
