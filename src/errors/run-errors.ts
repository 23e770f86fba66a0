import { AgentStateError, causeText, type ErrorScope } from './agentstate-error.js';

/** `getRunContext()` was called outside of any run or `withRunContext` block. */
export class NoActiveRunError extends AgentStateError {
  constructor() {
    super(
      'NO_ACTIVE_RUN',
      'getRunContext() was called outside of a run; use withRunContext(ctx, fn) to run code with an explicit context',
    );
  }
}

/** The model call failed (network, HTTP status, refusal to answer, ...). */
export class ModelError extends AgentStateError {
  readonly status: number | undefined;
  constructor(message: string, scope: ErrorScope & { status?: number | undefined } = {}) {
    super('MODEL_ERROR', message, scope);
    this.status = scope.status;
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
