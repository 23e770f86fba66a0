/**
 * Stable error codes. Every error the runtime raises carries one of these, so callers can
 * branch on `error.code` without string-matching messages.
 */
export type ErrorCode =
  | 'NO_ACTIVE_RUN'
  | 'MAX_TURNS_EXCEEDED'
  | 'MODEL_ERROR'
  | 'MODEL_BEHAVIOR'
  | 'SCRIPT_EXHAUSTED'
  | 'OUTPUT_VALIDATION'
  | 'RUN_CANCELLED'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_CONFLICT'
  | 'INVALID_SESSION_TRANSITION'
  | 'INVALID_SESSION_RECORD'
  | 'UNSUPPORTED_SCHEMA_VERSION'
  | 'SESSION_SAVE_FAILED'
  | 'NOTHING_TO_RESUME'
  | 'INVALID_RUN_STATE'
  | 'UNKNOWN_CALL'
  | 'RESTORE_FAILED';

/** Where an error happened, when known. */
export interface ErrorScope {
  sessionId?: string | undefined;
  runId?: string | undefined;
  cause?: unknown;
}

/** Plain-JSON form of an error, as stored in snapshots and journal entries (invariant 6). */
export interface SerializedError {
  name: string;
  message: string;
  code: string;
}

/** Base class of every error agentstate raises on purpose. */
export class AgentStateError extends Error {
  readonly code: ErrorCode;
  readonly sessionId: string | undefined;
  readonly runId: string | undefined;

  constructor(code: ErrorCode, message: string, scope: ErrorScope = {}) {
    super(message, scope.cause === undefined ? undefined : { cause: scope.cause });
    this.name = new.target.name;
    this.code = code;
    this.sessionId = scope.sessionId;
    this.runId = scope.runId;
  }

  toJSON(): SerializedError {
    return { name: this.name, message: this.message, code: this.code };
  }
}

/** Turns anything thrown into the plain `{ name, message, code }` stored in snapshots. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof AgentStateError) return error.toJSON();
  if (error instanceof Error) return { name: error.name, message: error.message, code: 'UNKNOWN' };
  return { name: 'Error', message: String(error), code: 'UNKNOWN' };
}
