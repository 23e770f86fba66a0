import type OpenAI from 'openai';
import { AgentStateError } from '../errors/agentstate-error.js';
import { ModelError } from '../errors/run-errors.js';

/**
 * The `openai` package's error classes, once it is loaded (it is loaded at a model's first
 * call: importing agentstate does not load it). A failure before that is none of the SDK's.
 */
export type OpenAISdk = typeof OpenAI | undefined;

/** Whether a failure is the caller's cancellation (rethrown unchanged by the adapters). */
export function isAbort(error: unknown, signal: AbortSignal | undefined, sdk: OpenAISdk): boolean {
  if (signal?.aborted) return true;
  if (sdk && error instanceof sdk.APIUserAbortError) return true;
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Whether the SDK would retry this answer: the server's `x-should-retry` header decides, else
 * 408, 409, 429 and 5xx are worth another try.
 */
function retryableStatus(status: number, headers: Headers | undefined): boolean {
  const says = headers?.get('x-should-retry');
  if (says === 'true' || says === 'false') return says === 'true';
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Wraps anything the SDK throws into a {@link ModelError} with the facts it has (`status`,
 * `requestId`, `retryable`); aborts pass through unchanged. Secrets are not removed here: the
 * adapter redacts what this returns.
 */
export function toModelError(
  error: unknown,
  signal: AbortSignal | undefined,
  sdk: OpenAISdk,
): unknown {
  if (isAbort(error, signal, sdk)) return error;
  if (error instanceof AgentStateError) return error;
  if (sdk) {
    const known = sdkFailure(error, sdk);
    if (known) return known;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model request failed: ${message}`, { cause: error });
}

/** The ModelError of one of the SDK's own errors (none for anything else). */
function sdkFailure(error: unknown, sdk: typeof OpenAI): ModelError | undefined {
  if (error instanceof sdk.APIConnectionTimeoutError) {
    const message = `The model request timed out: ${error.message}`;
    return new ModelError(message, { cause: error, retryable: true });
  }
  if (error instanceof sdk.APIConnectionError) {
    const message = `Could not reach the model server: ${error.message}`;
    return new ModelError(message, { cause: error, retryable: true });
  }
  if (error instanceof sdk.APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    return new ModelError(`The model request failed: ${error.message}`, {
      status,
      requestId: error.requestID ?? undefined,
      retryable:
        status === undefined
          ? undefined
          : retryableStatus(status, error.headers as Headers | undefined),
      cause: error,
    });
  }
  return undefined;
}
