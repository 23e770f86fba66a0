export {
  Agent,
  type RunOptions,
  type ResumeOptions,
  type ApproveOptions,
  type RejectOptions,
  type CancelOptions,
  type AgentSchedulerOptions,
} from './agent.js';
export type { SchedulerOptions, SchedulerHandle } from './approval-scheduler.js';
export type { AgentOptions } from './agent-options.js';
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
export type { SnapshotMigration } from './machine-upgrade.js';
export { AgentSession, type SessionRunOptions } from './agent-session.js';
export type { Clock } from './clock.js';
export type { InspectOption } from './inspection.js';
export type { RunResult } from './run-result.js';
export {
  RunState,
  RUN_STATE_SCHEMA_VERSION,
  type RunStateData,
  type Interruption,
  type ApprovalDecision,
} from './run-state.js';
export type { RunStream, RunStreamEvent } from './run-stream.js';
export { SessionRuntime, type SessionRuntimeOptions } from './session-runtime.js';
export type { SessionAction } from './session-action.js';
export type { RecoverOptions, RecoveredRun } from './recover-options.js';
export type { LeaseSettings } from './run-lease.js';
export type { Durability } from './durability-policy.js';
export type { SessionRuntimeEvents, SessionRuntimeEventType } from './session-events.js';
export type { SessionView } from './session-view.js';
export type { RunStatus, RunStatusView } from './run-status.js';
export { closeDefaultStores } from './default-store.js';
export type {
  PermissionPolicy,
  PermissionDecision,
  PermissionCall,
  PermissionScope,
} from './permission-policy.js';
export * from './actions/index.js';
export { exportReplay, type ExportReplayOptions } from './export-replay.js';
