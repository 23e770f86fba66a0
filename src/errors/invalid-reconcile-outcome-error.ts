import { AgentStateError, type ErrorScope } from './agentstate-error.js';

/**
 * A tool's `reconcile` answered something other than `{ result }`, `'retry'` or `'unknown'`
 * (a bare string, `null`, an object without `result`): a bug of the tool, not a result. The run
 * fails with it; the model never reads a result the tool did not give.
 */
export class InvalidReconcileOutcomeError extends AgentStateError {
  readonly callId: string;
  readonly tool: string;

  constructor(tool: string, callId: string, answered: unknown, scope: ErrorScope = {}) {
    super(
      'INVALID_RECONCILE_OUTCOME',
      `The reconcile of tool "${tool}" answered ${describeAnswer(answered)} for call ${callId}: it must answer { result }, 'retry' or 'unknown'`,
      scope,
    );
    this.tool = tool;
    this.callId = callId;
  }
}

/** A short JSON form of what a callback answered (`undefined` and functions named as such). */
function describeAnswer(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
