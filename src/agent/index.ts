export {
  Agent,
  type RunOptions,
  type ResumeOptions,
  type ApproveOptions,
  type RejectOptions,
  type CancelOptions,
  type StartSchedulerOptions,
} from './agent.js';
export type { ApprovalSchedulerOptions, SchedulerHandle } from '../approvals/approval-scheduler.js';
export type { AgentOptions } from '../definition/agent-options.js';
export type { AgentToolOptions } from './agent-tool.js';
export type {
  AgentActorLogic,
  AgentActorInput,
  AgentActorOutput,
  AgentActorEvent,
  AgentActorEmitted,
  AgentActorSnapshot,
  AgentActorContext,
} from './agent-actor.js';
export type { SnapshotMigration } from '../runs/machine-upgrade.js';
export { AgentSession, type SessionRunOptions } from './agent-session.js';
export type { Clock } from '../core/clock.js';
export type { InspectOption } from '../definition/inspection.js';
export type { RunResult } from '../session-host/run-result.js';
export {
  RunState,
  RUN_STATE_SCHEMA_VERSION,
  type RunStateData,
  type Interruption,
  type ApprovalDecision,
} from '../runs/run-state.js';
export type { RunStream, RunStreamEvent } from './run-stream.js';
export { SessionRuntime, type SessionRuntimeOptions } from '../sessions/session-runtime.js';
export type { SessionAction } from '../actions/session-action.js';
export type { RecoverOptions, RecoveredRun } from '../recovery/recover-options.js';
export type { LeaseSettings } from '../runs/run-lease.js';
export type { Durability } from '../core/durability-policy.js';
export type {
  SessionRuntimeEvents,
  SessionRuntimeEventType,
} from '../session-host/session-events.js';
export type { SessionView } from '../runs/session-view.js';
export type { RunStatus, RunStatusView } from '../runs/run-status.js';
export { closeDefaultStores } from '../sessions/default-store.js';
export type {
  PermissionPolicy,
  PermissionDecision,
  PermissionCall,
  PermissionScope,
} from '../core/permission-policy.js';
export * from '../actions/index.js';
export { exportReplay, type ExportReplayOptions } from '../recovery/export-replay.js';
