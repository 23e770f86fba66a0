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
  'PERMISSION_CHECK_FAILED',
  'TOOL_STEP_FAILED',
  'TOOLKIT_FAILED',
  'MCP_CALL_FAILED',
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
  'STALE_DECISION',
  'APPROVAL_EXPIRED',
  'ALREADY_DECIDED',
  'WRONG_AGENT',
  'DEFINITION_CHANGED',
  'RESTORE_FAILED',
  'UNPRICED_MODEL',
  'RUN_PAUSED',
  'RUN_IN_PROGRESS',
  'MESSAGE_QUEUED',
  'MESSAGE_ANSWERED',
  'SUB_AGENT_DEPTH',
  'LEASE_LOST',
  'STORE_UNAVAILABLE',
  'GUARDRAIL_TRIPWIRE',
  'GUARDRAIL_FAILED',
  'FORK_POSITION_OUT_OF_RANGE',
  'INVALID_REPLAY',
  'RUN_NOT_FOUND',
  'RECOVERY_EXHAUSTED',
  'NOT_IN_DOUBT',
  'STORE_NOT_FOUND',
  'INVALID_RECONCILE_OUTCOME',
  'AMBIGUOUS_CALL',
  'ID_TOO_LONG',
  'WORKFLOW_NOT_FOUND',
  'WORKFLOW_EXISTS',
  'WORKFLOW_MISMATCH',
  'WORKFLOW_DEFINITION_CHANGED',
  'EVENT_NOT_ACCEPTED',
  'UNDECLARED_ACTOR',
  'STEP_INTERRUPTED',
  'WORKFLOW_CANCELLED',
  'INVALID_EVENT',
  'INVALID_MEMORY',
  'INVALID_EMBEDDING',
  'MEMORY_CONFLICT',
  'INVALID_WORKING_MEMORY',
  'MEMORY_UNSUPPORTED',
  'INVALID_SCHEDULE',
  'SCHEDULE_EXISTS',
  'SCHEDULE_NOT_FOUND',
  'SCHEDULE_CONFLICT',
  'SCHEDULES_UNSUPPORTED',
  'SCHEDULE_LIMIT',
  'SCENARIO_FAILED',
  'INVALID_CERTIFICATE',
  'INVALID_DATASET',
  'INVALID_EVAL_REPORT',
  'EVAL_MISMATCH',
  'REMOTE_AGENT_FAILED',
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

/**
 * Plain-JSON form of an error, as stored in snapshots and journal entries (invariant 6). The
 * optional fields are the typed facts of a `ModelError` and the error's cause, one level per
 * `cause`; all of them are plain values.
 */
export interface SerializedError {
  name: string;
  message: string;
  code: string;
  /** HTTP status of a failed model call. */
  status?: number | undefined;
  /** The model server's request id (`x-request-id`), for its support. */
  requestId?: string | undefined;
  /** Whether trying the same call again may succeed (rate limit, timeout, 5xx, ...). */
  retryable?: boolean | undefined;
  /** What a streamed model answer had said when its stream failed (a `ModelError`). */
  partialText?: string | undefined;
  /** The step of a `RecoveryExhaustedError` (see `StepRef`). */
  failedStep?:
    | {
        kind: 'model' | 'tool' | 'approval' | 'guardrail';
        name: string;
        callId?: string | undefined;
        /** The step's number in the run's journal. */
        step: number;
      }
    | undefined;
  /** The limit a `RecoveryExhaustedError` reached. */
  maxRecoveries?: number | undefined;
  cause?: SerializedError | undefined;
}

/** How many causes deep an error is serialised. */
const MAX_CAUSES = 3;

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

  /** Plain facts a subclass keeps in the serialised form (e.g. a ModelError's `status`). */
  facts(): Omit<Partial<SerializedError>, 'name' | 'message' | 'code' | 'cause'> {
    return {};
  }

  toJSON(): SerializedError {
    return serializeError(this, this.code);
  }
}

/**
 * Turns anything thrown into the plain `{ name, message, code }` stored in snapshots, with the
 * typed facts of an AgentStateError and the cause chain (up to three causes deep). A value
 * without an agentstate code gets `fallback`: the code of the step that failed.
 */
export function serializeError(error: unknown, fallback: ErrorCode, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), code: fallback };
  const own = (error as { code?: unknown }).code;
  // SDK errors often keep the inherited name `Error`: their class says more.
  const className = error.constructor.name;
  const serialized: SerializedError = {
    name: error.name === 'Error' && className ? className : error.name,
    message: error.message,
    // A cause keeps its own code (an SDK's or Node's, e.g. ECONNRESET) as a fact about it.
    code: isErrorCode(own) || (depth > 0 && typeof own === 'string') ? own : fallback,
  };
  if (error instanceof AgentStateError) {
    for (const [key, value] of Object.entries(error.facts())) {
      if (value !== undefined) Object.assign(serialized, { [key]: value });
    }
  }
  if (error.cause !== undefined && depth < MAX_CAUSES) {
    serialized.cause = serializeError(error.cause, fallback, depth + 1);
  }
  return serialized;
}

/** The message of a thrown value, for wrapping it in a typed error. */
export function causeText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
