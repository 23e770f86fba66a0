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
  UnpricedModelError,
  ApprovalCheckError,
  ToolkitError,
  InstructionsError,
  InvalidSchemaError,
} from './run-errors.js';
export { MaxTurnsExceededError } from './max-turns-exceeded-error.js';
export {
  SessionNotFoundError,
  SessionConflictError,
  InvalidSessionTransitionError,
  InvalidSessionRecordError,
  UnsupportedSchemaVersionError,
  SessionSaveFailedError,
  NothingToResumeError,
  RestoreFailedError,
  RunPausedError,
  RunInProgressError,
  LeaseLostError,
  StoreLockedError,
  StoreOpenFailedError,
} from './session-errors.js';
