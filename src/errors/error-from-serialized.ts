import { AgentStateError, isErrorCode, type SerializedError } from './agentstate-error.js';
import { RecoveryExhaustedError } from './recovery-exhausted-error.js';
import {
  ModelError,
  OutputValidationError,
  RunCancelledError,
  UnpricedModelError,
} from './run-errors.js';

/** A plain Error standing for a stored cause (its class is not rebuilt). */
function causeFromSerialized(cause: SerializedError): Error {
  const error = new Error(
    cause.message,
    cause.cause ? { cause: causeFromSerialized(cause.cause) } : undefined,
  );
  error.name = cause.name;
  return error;
}

/**
 * Rebuilds a typed error from its stored `{ name, message, code }` form, with a ModelError's
 * `status`, `requestId` and `retryable` and the stored cause chain (as plain Errors).
 */
export function errorFromSerialized(
  error: SerializedError,
  where: { sessionId?: string; runId?: string } = {},
): AgentStateError {
  const scope = error.cause ? { ...where, cause: causeFromSerialized(error.cause) } : where;
  switch (error.code) {
    case 'OUTPUT_VALIDATION':
      return new OutputValidationError(error.message, scope);
    case 'UNPRICED_MODEL':
      return new UnpricedModelError(error.message, scope);
    case 'RUN_CANCELLED':
      // The class an app tests for (`error instanceof RunCancelledError`), wherever it ended.
      return new RunCancelledError(scope);
    case 'MODEL_ERROR':
      return new ModelError(error.message, {
        ...scope,
        status: error.status,
        requestId: error.requestId,
        retryable: error.retryable,
        partialText: error.partialText,
      });
    case 'RECOVERY_EXHAUSTED':
      if (error.failedStep && error.maxRecoveries !== undefined) {
        return new RecoveryExhaustedError(error.failedStep, error.maxRecoveries, scope);
      }
      return new AgentStateError('RECOVERY_EXHAUSTED', error.message, scope);
    default: {
      // Runs failed by agentstate 0.1 may carry its `UNKNOWN`; their step was a model call.
      const code = isErrorCode(error.code) ? error.code : 'MODEL_ERROR';
      const rebuilt = new AgentStateError(code, error.message, scope);
      rebuilt.name = error.name;
      return rebuilt;
    }
  }
}
