export {
  AgentStateError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorScope,
  type SerializedError,
} from './agentstate-error.js';
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
  UnpricedModelError,
  ApprovalCheckError,
  ToolkitError,
  McpCallError,
  type McpCallFailure,
  InstructionsError,
  InvalidSchemaError,
  SubAgentDepthError,
} from './run-errors.js';
export { MaxTurnsExceededError } from './max-turns-exceeded-error.js';
export { PermissionCheckError } from './permission-check-error.js';
export {
  GuardrailTripwireError,
  GuardrailError,
  type GuardrailResult,
} from './guardrail-errors.js';
export {
  SessionNotFoundError,
  SessionConflictError,
  InvalidSessionTransitionError,
  InvalidSessionRecordError,
  UnsupportedSchemaVersionError,
  SessionSaveFailedError,
  NothingToResumeError,
  WrongAgentError,
  RestoreFailedError,
  RunPausedError,
  RunInProgressError,
  LeaseLostError,
  StoreUnavailableError,
  StoreLockedError,
  StoreOpenFailedError,
} from './session-errors.js';
export { ForkPositionError, InvalidReplayError, RunNotFoundError } from './replay-errors.js';
