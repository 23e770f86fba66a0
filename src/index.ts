/**
 * Long on purpose: the public API, every name listed one by one (no `export *`).
 *
 * The public API of agentstate for app authors, every name listed here (no `export *`).
 * Everything else under `src/` is internal and may change without notice. The other tiers
 * are subpaths: `agentstate-runtime/store` (for store implementers: the store contract's parts, the
 * record codecs and the contract test suite), `agentstate-runtime/testing`, `agentstate-runtime/postgres`,
 * `agentstate-runtime/inspect`, `agentstate-runtime/http`, `agentstate-runtime/mcp` and `agentstate-runtime/ai-sdk`. `test/package/public-api.test.ts`
 * pins every list.
 */

// ---- the agent, its sessions and its runs ----------------------------------------------------
export { Agent } from './agent/agent.js';
export { workflows, Workflows } from './workflows/workflows.js';
export type { InstanceScope } from './workflows/workflows.js';
export type { WorkflowApproval } from './workflows/workflow-approvals.js';
export type { Recovered } from './workflows/workflow-recovery.js';
export type { WorkflowsOptions } from './workflows/workflow-options.js';
export type { WorkflowInfo, WorkflowSummary } from './workflows/workflow-info.js';
export type {
  WorkflowScheduler,
  WorkflowSchedulerOptions,
} from './workflows/workflow-scheduler.js';
export type {
  StepContext,
  StepDefinition,
  StepReconcileOutcome,
  StepSource,
} from './workflow-host/step-definition.js';
export type { StepResolution } from './workflow-host/instance-command.js';
export type { WorkflowMigration } from './workflow-host/stored-instances.js';
export type {
  WorkflowEventOutput,
  WorkflowStepOutput,
} from './machines/schemas/workflow-journal.js';
export type {
  RunOptions,
  ResumeOptions,
  ApproveOptions,
  RejectOptions,
  StreamDecision,
  CancelOptions,
  StartSchedulerOptions,
  ResolveInDoubtOptions,
} from './agent/agent-call-options.js';
export type { AgentOptions } from './definition/agent-options.js';
export type {
  DefinitionFingerprint,
  DefinitionChange,
} from './definition/definition-fingerprint.js';
export type { InspectOption } from './definition/inspection.js';
export type { AgentToolOptions } from './agent/agent-tool.js';
export type {
  AgentActorLogic,
  AgentActorInput,
  AgentActorOutput,
  AgentActorEvent,
  AgentActorEmitted,
  AgentActorSnapshot,
  AgentActorContext,
} from './agent/agent-actor-types.js';
export { AgentSession, type SessionRunOptions } from './agent/agent-session.js';
export type { RunStream, RunStreamEvent } from './agent/run-stream.js';
export type { AttachOptions } from './agent/run-attach.js';
export type { AttachEvent, AttachEventBody } from './runs/attach-events.js';
export type { RunResult } from './session-host/run-result.js';
export {
  RunState,
  RUN_STATE_SCHEMA_VERSION,
  type RunStateData,
  type Interruption,
  type ApprovalDecision,
} from './runs/run-state.js';
export type { SnapshotMigration } from './runs/machine-upgrade.js';
export type { LeaseSettings } from './runs/run-lease.js';
export type { SessionView } from './runs/session-view.js';
export type { RunStatus, RunStatusView } from './runs/run-status.js';
export type { RunUsage } from './machines/run-usage.js';
export type { InterruptionReason } from './machines/run-types.js';
export type { SubRunSummary } from './machines/sub-run-types.js';
export type { Budget, SessionConfig } from './machines/session-types.js';

// ---- the session runtime and its actions -----------------------------------------------------
export { SessionRuntime } from './sessions/session-runtime.js';
export type { SessionRuntimeOptions } from './sessions/session-runtime-options.js';
export { closeDefaultStores } from './sessions/default-store.js';
export type {
  SessionRuntimeEvents,
  SessionRuntimeEventType,
} from './session-host/session-events.js';
export type { SessionAction } from './actions/session-action.js';
export type { RunActionOptions } from './actions/run-options.js';
export { sendMessage } from './actions/send-message.js';
export { continueRun, type ContinueRunOptions } from './actions/continue-run.js';
export { cancelRun } from './actions/cancel-run.js';
export {
  resumeSession,
  suspendSession,
  completeSession,
  failSession,
  clearSession,
} from './actions/lifecycle-actions.js';
export {
  changeModel,
  changeBudget,
  changeSystemPrompt,
  writeMetadata,
  updateTask,
} from './actions/config-actions.js';
export { forkSession, type ForkSessionOptions } from './actions/fork-session.js';
export { deleteSession, type DeleteSessionOptions } from './actions/delete-session.js';
export type {
  ApprovalSchedulerOptions,
  ApprovalSchedulerHandle,
} from './approvals/approval-scheduler-options.js';
export type { RecoverOptions, RecoveredRun } from './recovery/recover-options.js';
export { exportReplay, type ExportReplayOptions } from './recovery/export-replay.js';

// ---- policies, the clock and the run context --------------------------------------------------
export type { Clock } from './core/clock.js';
export type { Durability } from './core/durability-policy.js';
export type { WhileBusy } from './core/busy-policy.js';
export type {
  PermissionPolicy,
  PermissionDecision,
  PermissionCall,
  PermissionScope,
} from './core/permission-policy.js';
export { RunContext, type RunContextInit, type RunContextOverrides } from './core/run-context.js';
export { getRunContext, findRunContext, withRunContext } from './core/run-context-storage.js';

// ---- items and context windows ---------------------------------------------------------------
export {
  contentText,
  type Item,
  type UserMessageItem,
  type AssistantMessageItem,
  type DeveloperMessageItem,
  type SystemMessageItem,
  type SummaryItem,
  type ToolCallItem,
  type ToolResultItem,
  type ReasoningItem,
  type RunInput,
} from './items/item.js';
export type {
  UserContentPart,
  TextPart,
  ImageUrlPart,
  ImageDataPart,
  FileDataPart,
  FileIdPart,
} from './items/content-part.js';
export type {
  HistoryStrategy,
  ItemWindow,
  TokenWindow,
  SummarizeContext,
} from './context-window/history-strategy.js';
export { estimateTokens } from './context-window/token-estimate.js';

// ---- tools and guardrails --------------------------------------------------------------------
export {
  tool,
  type Tool,
  type AnyTool,
  type ToolDefinition,
  type ToolExecuteOptions,
  type NeedsApproval,
} from './tools/tool.js';
export type { OnInterrupted, Reconcile, ReconcileOutcome } from './tools/in-doubt.js';
export type { InDoubtRecord, InDoubtAction, OperatorResolution } from './items/in-doubt-record.js';
export type { InDoubtResolution } from './actions/resolve-in-doubt.js';
export type { InDoubtCall } from './runs/calls-in-doubt.js';
export { toolkit, type Toolkit, type ToolkitSession } from './tools/toolkit.js';
export type { ToolErrorHook, ToolErrorInfo } from './tools/guard-tool.js';
export type {
  InputGuardrail,
  OutputGuardrail,
  GuardrailVerdict,
  GuardrailInput,
  GuardrailOutput,
} from './guardrails/guardrail.js';

// ---- models and pricing ----------------------------------------------------------------------
export type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  ModelStreamEvent,
  ModelCallOptions,
  FinishReason,
  ToolSpec,
} from './models/model.js';
export type { ModelSettings, ToolChoice, ReasoningEffort } from './models/model-settings.js';
export { OpenAIModel, type OpenAIModelOptions } from './models/openai-model.js';
export type { Embedder, EmbeddingUsage } from './models/embedder.js';
export { openaiEmbedder, type OpenAIEmbedderOptions } from './models/openai-embedder.js';
export {
  defaultPrices,
  defaultEmbeddingPrices,
  withPrices,
  findPrice,
  costUsd,
  type ModelPrice,
  type PriceTable,
} from './models/pricing.js';
export { parseReplay, type ReplayFile } from './models/replay-file.js';

// ---- where sessions live (store implementers: `agentstate-runtime/store`) ----------------------------
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
  ListSessionsQuery,
  SessionPage,
} from './persistence/session-store.js';
export type { UsageTotals } from './machines/session-types.js';
export type {
  AuditEntry,
  AuditKind,
  AuditVia,
  AuditQuery,
  AuditPage,
} from './persistence/audit-log.js';

// ---- telemetry -------------------------------------------------------------------------------
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type { Logger, LogLevel, LogEvent } from './telemetry/logger.js';

// ---- errors ----------------------------------------------------------------------------------
export {
  AgentStateError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorScope,
  type SerializedError,
} from './errors/agentstate-error.js';
export {
  NoActiveRunError,
  ModelError,
  ModelBehaviorError,
  ScriptExhaustedError,
  OutputValidationError,
  RunCancelledError,
  InvalidRunStateError,
  UnknownCallError,
  StaleDecisionError,
  ApprovalExpiredError,
  AlreadyDecidedError,
  CallNotInDoubtError,
  UnpricedModelError,
  ApprovalCheckError,
  ToolkitError,
  McpCallError,
  type McpCallFailure,
  InstructionsError,
  InvalidSchemaError,
  SubAgentDepthError,
} from './errors/run-errors.js';
export { MaxTurnsExceededError } from './errors/max-turns-exceeded-error.js';
export { InvalidReconcileOutcomeError } from './errors/invalid-reconcile-outcome-error.js';
export { AmbiguousCallError } from './errors/ambiguous-call-error.js';
export { PermissionCheckError } from './errors/permission-check-error.js';
export {
  GuardrailTripwireError,
  GuardrailError,
  type GuardrailResult,
} from './errors/guardrail-errors.js';
export {
  SessionNotFoundError,
  SessionConflictError,
  InvalidSessionTransitionError,
  InvalidSessionRecordError,
  UnsupportedSchemaVersionError,
  SessionSaveFailedError,
  NothingToResumeError,
  WrongAgentError,
  DefinitionChangedError,
  type DefinitionPartChange,
  RestoreFailedError,
  RunPausedError,
  RunInProgressError,
  LeaseLostError,
  StoreUnavailableError,
  StoreLockedError,
  StoreOpenFailedError,
} from './errors/session-errors.js';
export { MessageQueuedError } from './errors/message-queued-error.js';
export { MessageAnsweredError } from './errors/message-answered-error.js';
export { StoreNotFoundError } from './errors/store-not-found-error.js';
export { ForkPositionError, InvalidReplayError, RunNotFoundError } from './errors/replay-errors.js';
export { RecoveryExhaustedError } from './errors/recovery-exhausted-error.js';
export { IdTooLongError } from './errors/id-too-long-error.js';
export {
  EventNotAcceptedError,
  InvalidEventError,
  StepInterruptedError,
  UndeclaredActorError,
  WorkflowCancelledError,
  WorkflowDefinitionChangedError,
  WorkflowExistsError,
  WorkflowMismatchError,
  WorkflowNotFoundError,
} from './errors/workflow-errors.js';
export { MAX_ID_LENGTH } from './core/id-limit.js';
export type { RecoveryExhaustedHook, StepRef } from './errors/recovery-exhausted-error.js';

export {
  openMemory,
  MemoryHandle,
  type OpenMemoryOptions,
  type ForgetScope,
} from './memory/open-memory.js';
export type {
  MemoryOptions,
  RecallOptions,
  WorkingMemoryOptions,
} from './memory/memory-options.js';
export type { ToolMemory } from './tools/tool-memory.js';
export type { RecalledMemoryFact, RequestMemoryFacts } from './machines/step-actor-io.js';
export type {
  Memory,
  MemoryKind,
  MemoryMatch,
  MemoryPage,
  MemoryListQuery,
  MemoryResource,
  MemoryScope,
  ForgetResult,
  WorkingMemoryRecord,
} from './persistence/memory-store.js';
export {
  InvalidMemoryError,
  InvalidEmbeddingError,
  MemoryConflictError,
  InvalidWorkingMemoryError,
  MemoryUnsupportedError,
} from './errors/memory-errors.js';

export {
  openSchedules,
  type SchedulesHandle,
  type SchedulesOptions,
  type ScheduleInfo,
  type ScheduleScope,
} from './schedules/schedules-handle.js';
export type { ScheduleInput, ScheduleTargetInput } from './schedules/schedule-input.js';
export type { ScheduleRuleInput } from './schedules/schedule-rule.js';
export type { ScheduleActor } from './schedules/schedule-audit.js';
export type { ScheduleFiringOptions } from './schedules/schedule-firing.js';
export { scheduleTools, type ScheduleToolsOptions } from './schedules/schedule-tools.js';
export type {
  CreateScheduleArguments,
  CancelScheduleArguments,
} from './schedules/schedule-tool-arguments.js';
export type {
  ScheduleRule,
  ScheduleTarget,
  OverlapPolicy,
  CatchUpPolicy,
  TickRecord,
  TickOutcome,
} from './persistence/schedule-store.js';
export {
  InvalidScheduleError,
  ScheduleExistsError,
  ScheduleNotFoundError,
  ScheduleConflictError,
  SchedulesUnsupportedError,
  ScheduleLimitError,
} from './errors/schedule-errors.js';
export { ScenarioFailedError } from './errors/scenario-failed-error.js';
export { InvalidCertificateError } from './errors/certificate-errors.js';
export {
  EvalMismatchError,
  InvalidDatasetError,
  InvalidEvalReportError,
} from './errors/eval-errors.js';
export { RemoteAgentError } from './errors/remote-agent-error.js';
