import {
  AgentStateError,
  causeText,
  type ErrorScope,
  type SerializedError,
} from './agentstate-error.js';

/** `getRunContext()` was called outside of any run or `withRunContext` block. */
export class NoActiveRunError extends AgentStateError {
  constructor() {
    super(
      'NO_ACTIVE_RUN',
      'getRunContext() was called outside of a run; use withRunContext(ctx, fn) to run code with an explicit context',
    );
  }
}

/** The facts of a failed model call that survive serialisation. */
export type ModelErrorFacts = Pick<
  SerializedError,
  'status' | 'requestId' | 'retryable' | 'partialText'
>;

/**
 * The model call failed (network, HTTP status, refusal to answer, ...). `status`, `requestId`
 * and `retryable` are kept in the stored run, so the error `agent.run` throws (also in another
 * process, after a restore) carries the same facts as the one the model threw.
 */
export class ModelError extends AgentStateError {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The server's request id (`x-request-id`), when it sent one. */
  readonly requestId: string | undefined;
  /** Whether the same call may succeed later (429, 408, 409, 5xx, timeouts, connection errors). */
  readonly retryable: boolean | undefined;
  /**
   * The text a streamed answer had said when its stream failed (absent when nothing arrived,
   * and for calls not streamed). Stored with the interrupted run's error; the retry calls the
   * model afresh with the same request, so the app decides what to do with it.
   */
  readonly partialText: string | undefined;
  constructor(message: string, scope: ErrorScope & ModelErrorFacts = {}) {
    super('MODEL_ERROR', message, scope);
    this.status = scope.status;
    this.requestId = scope.requestId;
    this.retryable = scope.retryable;
    this.partialText = scope.partialText;
  }

  override facts(): ModelErrorFacts {
    return {
      status: this.status,
      requestId: this.requestId,
      retryable: this.retryable,
      partialText: this.partialText,
    };
  }

  /**
   * `error` (a failed stream) as a ModelError that keeps `partialText`: a ModelError's facts
   * and cause are kept; any other error becomes the cause.
   */
  static cutShort(error: unknown, partialText: string, scope: ErrorScope = {}): ModelError {
    const own = error instanceof ModelError;
    return new ModelError(error instanceof Error ? error.message : String(error), {
      ...scope,
      ...(own ? error.facts() : {}),
      cause: own ? error.cause : error,
      partialText,
    });
  }
}

/**
 * A cost budget applies but no price is known for the model, so the budget could not be
 * enforced: raised before the model is called. Add the model's price (`withPrices`,
 * `AgentOptions.prices` or the model's own `price`) or drop `maxCostUsd`.
 */
export class UnpricedModelError extends AgentStateError {
  constructor(message: string, scope: ErrorScope = {}) {
    super('UNPRICED_MODEL', message, scope);
  }

  /** The error for `model`. */
  static forModel(model: string, scope: ErrorScope = {}): UnpricedModelError {
    return new UnpricedModelError(
      `No price is known for model "${model}", so the cost budget (maxCostUsd) cannot be enforced; ` +
        'add its price with withPrices() / AgentOptions.prices, or remove maxCostUsd',
      scope,
    );
  }
}

/** The model answered something the runtime cannot use (e.g. an unknown finish). */
export class ModelBehaviorError extends AgentStateError {
  constructor(message: string, scope: ErrorScope = {}) {
    super('MODEL_BEHAVIOR', message, scope);
  }
}

/** A scripted model was called more times than it has responses for. */
export class ScriptExhaustedError extends AgentStateError {
  constructor(callIndex: number, scripted: number) {
    super(
      'SCRIPT_EXHAUSTED',
      `ScriptedModel received call #${callIndex + 1} but only ${scripted} response(s) were scripted`,
    );
  }
}

/** The final output did not match the agent's `outputType`. */
export class OutputValidationError extends AgentStateError {
  constructor(message: string, scope: ErrorScope = {}) {
    super('OUTPUT_VALIDATION', message, scope);
  }
}

/** The run was cancelled through its AbortSignal. */
export class RunCancelledError extends AgentStateError {
  constructor(scope: ErrorScope = {}) {
    super('RUN_CANCELLED', 'The run was cancelled', scope);
  }
}

/** A RunState could not be read: bad JSON, schema mismatch or a newer schema version. */
export class InvalidRunStateError extends AgentStateError {
  constructor(message: string, scope: ErrorScope = {}) {
    super('INVALID_RUN_STATE', message, scope);
  }
}

/** An approval or rejection named a call that is not waiting for one. */
export class UnknownCallError extends AgentStateError {
  constructor(callId: string, scope: ErrorScope = {}) {
    super('UNKNOWN_CALL', `No tool call "${callId}" is waiting for approval`, scope);
  }
}

/**
 * A resolution of a call in doubt (`agent.resolveInDoubt`) that names no call the session's
 * run waits on for an operator: an unknown call id, a call not in doubt, a run not paused in
 * doubt. Nothing was applied.
 */
export class CallNotInDoubtError extends AgentStateError {
  readonly callId: string;

  constructor(callId: string, reason: string, scope: ErrorScope = {}) {
    super(
      'NOT_IN_DOUBT',
      `No tool call "${callId}" is in doubt waiting for an operator: ${reason}`,
      scope,
    );
    this.callId = callId;
  }
}

/**
 * An approval decision made on a stale RunState: for another run, for a run that is no longer
 * waiting for approval, or for a call whose name or arguments differ from the pending one.
 * Nothing of the resume was applied.
 */
export class StaleDecisionError extends AgentStateError {
  readonly callId: string;

  constructor(callId: string, reason: string, scope: ErrorScope = {}) {
    super('STALE_DECISION', `The decision on tool call "${callId}" is stale: ${reason}`, scope);
    this.callId = callId;
  }
}

/**
 * A decision on a call that was already decided (recorded by `agentstate approve`, the
 * inspector or an earlier `agent.approve`, and waiting for the app's resume, or decided and
 * waiting for other calls of its turn): `decision` is the one recorded. Nothing was changed.
 */
export class AlreadyDecidedError extends AgentStateError {
  readonly callId: string;
  /** The decision the session holds for the call. */
  readonly decision: 'approved' | 'rejected';

  constructor(
    callId: string,
    decision: 'approved' | 'rejected',
    held: boolean,
    scope: ErrorScope = {},
  ) {
    super(
      'ALREADY_DECIDED',
      `Tool call "${callId}" was already ${decision}` +
        (held ? ' (recorded; it runs when the app resumes the run)' : ''),
      scope,
    );
    this.callId = callId;
    this.decision = decision;
  }
}

/**
 * An approval decision arrived after the call's approval deadline: the call is rejected with
 * reason `timeout` instead (resume without decisions, or the scheduler, does that). Nothing of
 * the resume was applied.
 */
export class ApprovalExpiredError extends AgentStateError {
  readonly callId: string;
  /** The call's deadline, epoch milliseconds. */
  readonly deadline: number;

  constructor(callId: string, deadline: number, scope: ErrorScope = {}) {
    super(
      'APPROVAL_EXPIRED',
      `The decision on tool call "${callId}" came too late: its approval deadline ` +
        `${new Date(deadline).toISOString()} has passed, so the call is rejected with reason ` +
        'timeout (resume without decisions to continue the run)',
      scope,
    );
    this.callId = callId;
    this.deadline = deadline;
  }
}

/** A tool's `needsApproval` function threw: the run cannot tell whether the call may run. */
export class ApprovalCheckError extends AgentStateError {
  constructor(toolName: string, cause: unknown, scope: ErrorScope = {}) {
    super(
      'APPROVAL_CHECK_FAILED',
      `needsApproval of tool "${toolName}" threw: ${causeText(cause)}`,
      { ...scope, cause },
    );
  }
}

/** A toolkit's `create` or `close` threw. */
export class ToolkitError extends AgentStateError {
  constructor(toolkit: string, phase: 'create' | 'close', cause: unknown, scope: ErrorScope = {}) {
    super('TOOLKIT_FAILED', `Toolkit "${toolkit}" failed to ${phase}: ${causeText(cause)}`, {
      ...scope,
      cause,
    });
  }
}

/** A sub-agent call would nest runs deeper than the top-level agent's `maxSubAgentDepth`. */
export class SubAgentDepthError extends AgentStateError {
  constructor(path: readonly string[], maxDepth: number, scope: ErrorScope = {}) {
    super(
      'SUB_AGENT_DEPTH',
      `Sub-agent "${path.join(' > ')}" is nested ${path.length - 1} deep; the limit is ${maxDepth} (maxSubAgentDepth)`,
      scope,
    );
  }
}

/** Why an MCP tool call gave no result. */
export type McpCallFailure = 'connect' | 'timeout' | 'disconnected' | 'tool_error';

/**
 * An MCP tool call failed: the server could not be reached, did not answer in time, failed
 * during the call, or answered `isError: true`. The model reads it as a tool error item; the
 * app's `onToolError` receives it whole.
 */
export class McpCallError extends AgentStateError {
  constructor(
    readonly toolkit: string,
    readonly toolName: string,
    readonly reason: McpCallFailure,
    message: string,
    cause?: unknown,
  ) {
    super('MCP_CALL_FAILED', message, cause === undefined ? {} : { cause });
  }
}

/** The agent's `instructions` function threw. */
export class InstructionsError extends AgentStateError {
  constructor(agent: string, cause: unknown, scope: ErrorScope = {}) {
    super(
      'INSTRUCTIONS_FAILED',
      `The instructions of agent "${agent}" threw: ${causeText(cause)}`,
      { ...scope, cause },
    );
  }
}

/** A zod schema (tool parameters, `outputType`) has no JSON Schema form for the model. */
export class InvalidSchemaError extends AgentStateError {
  constructor(what: string, cause: unknown) {
    super(
      'INVALID_SCHEMA',
      `${what} cannot be described to the model as JSON Schema: ${causeText(cause)}`,
      { cause },
    );
  }
}
