/**
 * Every stable error code, in one list: every error the runtime raises carries one of these,
 * so callers can branch on `error.code` without string-matching messages. The README lists
 * exactly this set (a test checks it).
 */
export const ERROR_CODES = [
  'NO_ACTIVE_RUN',
  'MAX_TURNS_EXCEEDED',
  'MODEL_ERROR',
  'MODEL_BEHAVIOR',
  'SCRIPT_EXHAUSTED',
  'OUTPUT_VALIDATION',
  'RUN_CANCELLED',
  'APPROVAL_CHECK_FAILED',
  'TOOL_STEP_FAILED',
  'TOOLKIT_FAILED',
  'INSTRUCTIONS_FAILED',
  'INVALID_SCHEMA',
  'SESSION_NOT_FOUND',
  'SESSION_CONFLICT',
  'INVALID_SESSION_TRANSITION',
  'INVALID_SESSION_RECORD',
  'UNSUPPORTED_SCHEMA_VERSION',
  'SESSION_SAVE_FAILED',
  'STORE_LOCKED',
  'STORE_OPEN_FAILED',
  'NOTHING_TO_RESUME',
  'INVALID_RUN_STATE',
  'UNKNOWN_CALL',
  'RESTORE_FAILED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether `code` is one of {@link ERROR_CODES}. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

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

/**
 * Turns anything thrown into the plain `{ name, message, code }` stored in snapshots. An error
 * that carries no agentstate code gets `fallback`: the code of the step that failed.
 */
export function serializeError(error: unknown, fallback: ErrorCode): SerializedError {
  if (error instanceof AgentStateError) return error.toJSON();
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
  };
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
    code: isErrorCode(e.code) ? e.code : fallback,
  };
}

/** The message of a thrown value, for wrapping it in a typed error. */
export function causeText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
