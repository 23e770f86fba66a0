import { AgentStateError } from '../errors/agentstate-error.js';
import { RunInProgressError } from '../errors/session-errors.js';

/** The statuses a refused HTTP request gets. */
export type HttpErrorStatus = 202 | 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 500 | 503;

/**
 * A request an HTTP surface refuses: its status and a stable `code`, sent as the JSON body
 * `{ error: { code, message } }`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: HttpErrorStatus,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Codes of what does not exist (or belongs to another user, which looks the same). */
const NOT_FOUND: ReadonlySet<string> = new Set([
  'SESSION_NOT_FOUND',
  'RUN_NOT_FOUND',
  'WORKFLOW_NOT_FOUND',
  'SCHEDULE_NOT_FOUND',
]);

/** Codes of actions the session's state does not allow now. */
const CONFLICTS: ReadonlySet<string> = new Set([
  'INVALID_SESSION_TRANSITION',
  'RUN_IN_PROGRESS',
  'RUN_PAUSED',
  'NOTHING_TO_RESUME',
  'SESSION_CONFLICT',
  'STALE_DECISION',
  'ALREADY_DECIDED',
  'NOT_IN_DOUBT',
  'WRONG_AGENT',
  'DEFINITION_CHANGED',
  'MESSAGE_ANSWERED',
  'SCHEDULE_CONFLICT',
]);

/**
 * The HTTP form of a failed request: an `HttpError` as it is, a typed agentstate error by its
 * code (not found 404, a state that does not allow the action 409, a message queued for another
 * process 202 `MESSAGE_QUEUED`, other typed errors 400), a
 * `TypeError` (a bad argument) 400. Anything else is 500 with `fallback` as its message: an
 * unexpected error's own message never reaches the client. Messages speak HTTP: advice meant
 * for a caller of the library (an `AbortSignal`) is replaced by what a client can do.
 */
export function httpErrorOf(error: unknown, fallback: string): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof AgentStateError) {
    // A message queued for the process running the session: stored, answered there.
    if (error.code === 'MESSAGE_QUEUED') return new HttpError(202, error.code, error.message);
    const status = NOT_FOUND.has(error.code) ? 404 : CONFLICTS.has(error.code) ? 409 : 400;
    return new HttpError(status, error.code, httpMessageOf(error));
  }
  if (error instanceof TypeError) return new HttpError(400, 'BAD_REQUEST', error.message);
  return new HttpError(500, 'INTERNAL', fallback);
}

/** A typed error's message as an HTTP client reads it. */
function httpMessageOf(error: AgentStateError): string {
  if (error instanceof RunInProgressError && !error.elsewhere) {
    return `Session "${error.sessionId ?? ''}" is answering another request: wait for that answer, or cancel its run, then send again`;
  }
  return error.message;
}
