import {
  A2AError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { AgentStateError } from '../errors/agentstate-error.js';

/**
 * The A2A error a failed call answers with (the SDK's transport maps it to its JSON-RPC error
 * object): an A2A error as it is; a session not found `TaskNotFoundError`; a `TypeError` (a bad
 * argument) `RequestMalformedError`; another typed error `UnsupportedOperationError` with its
 * `code` in the error info's metadata; anything else an internal error saying no more.
 */
export function a2aErrorOf(error: unknown): Error {
  if (error instanceof A2AError) return error;
  if (error instanceof AgentStateError) {
    if (error.code === 'SESSION_NOT_FOUND') return new TaskNotFoundError(error.message);
    return new UnsupportedOperationError({
      message: `${error.code}: ${error.message}`,
      metadata: { code: error.code },
    });
  }
  if (error instanceof TypeError) return new RequestMalformedError(error.message);
  return new Error('The request failed');
}
