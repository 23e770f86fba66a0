import { AgentStateError, type ErrorCode, type SerializedError } from './agentstate-error.js';
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
      const rebuilt = new AgentStateError(
        (error.code as ErrorCode) ?? 'MODEL_ERROR',
        error.message,
        scope,
      );
      rebuilt.name = error.name;
      return rebuilt;
    }
  }
}
