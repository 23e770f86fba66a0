import { AgentStateError, isErrorCode, type SerializedError } from './agentstate-error.js';
import { ModelError, OutputValidationError } from './run-errors.js';

/** Rebuilds a typed error from its stored `{ name, message, code }` form. */
export function errorFromSerialized(
  error: SerializedError,
  scope: { sessionId?: string; runId?: string } = {},
): AgentStateError {
  switch (error.code) {
    case 'OUTPUT_VALIDATION':
      return new OutputValidationError(error.message, scope);
    case 'MODEL_ERROR':
      return new ModelError(error.message, scope);
    default: {
      // Runs failed by agentstate 0.1 may carry its `UNKNOWN`; their step was a model call.
      const code = isErrorCode(error.code) ? error.code : 'MODEL_ERROR';
      const rebuilt = new AgentStateError(code, error.message, scope);
      rebuilt.name = error.name;
      return rebuilt;
    }
  }
}
