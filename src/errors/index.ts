export {
  AgentStateError,
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
} from './session-errors.js';
