import { InvalidReconcileOutcomeError } from '../errors/invalid-reconcile-outcome-error.js';
import type { ToolCallItem, ToolResultItem } from '../items/item.js';
import type { RunContext } from '../core/run-context.js';
import type { InDoubtRecord, OperatorDecision } from '../items/in-doubt-record.js';
import { parseToolArguments, renderToolOutput } from './invoke-tool.js';
import type { AnyTool, ToolExecuteOptions } from './tool.js';

/**
 * What a restored run does with a tool call that was started and not finished when its process
 * stopped (a call *in doubt*: its effect may or may not have happened):
 * - `'retry'`: run it again, with the same call id (the tool's idempotency key). The default
 *   for tools marked `idempotent: true`.
 * - `'ask'`: do not run it; the run pauses (interruption `in_doubt`) until an operator
 *   resolves the call: run it again, record its result by hand, or fail it.
 * - `'fail'`: do not run it; the model reads a tool error saying the call's outcome is unknown.
 *   The default for every other tool: an unattended run goes on, and no effect happens twice.
 */
export type OnInterrupted = 'retry' | 'ask' | 'fail';

/** What a tool's `reconcile` found out about a call in doubt. */
export type ReconcileOutcome<TResult = unknown> =
  /** The effect happened: this is the call's result (rendered as `execute`'s return value). */
  | { result: TResult }
  /** The effect did not happen: run the call again (same call id). */
  | 'retry'
  /** Cannot tell: the tool's `onInterrupted` (or its default) decides. */
  | 'unknown';

/**
 * Looks up the effect of a call in doubt (e.g. in a payment provider, by the call id used as
 * idempotency key). A thrown error counts as `'unknown'`.
 */
export type Reconcile<TArgs, TResult = unknown> = (
  call: { callId: string; name: string; args: TArgs },
  options: ToolExecuteOptions,
) => ReconcileOutcome<TResult> | Promise<ReconcileOutcome<TResult>>;

/** Whether `value` is one of the answers a `reconcile` may give. */
function isReconcileOutcome(value: unknown): value is ReconcileOutcome {
  return (
    value === 'retry' ||
    value === 'unknown' ||
    (typeof value === 'object' && value !== null && !Array.isArray(value) && 'result' in value)
  );
}

/** The policy a tool follows for a call in doubt when `reconcile` cannot tell (or is absent). */
export function onInterruptedOf(t: AnyTool): OnInterrupted {
  return t.onInterrupted ?? (t.idempotent === true ? 'retry' : 'fail');
}

/** The result the model reads for a call whose outcome is unknown. */
export function unknownOutcomeResult(call: ToolCallItem): ToolResultItem {
  return {
    type: 'tool_result',
    callId: call.callId,
    name: call.name,
    output:
      `Error: the outcome of this call of tool "${call.name}" is unknown: the process running ` +
      `it stopped before it finished, so its effect may or may not have happened ` +
      `(call id ${call.callId}). It was not run again.`,
    isError: true,
  };
}

/** What a call in doubt leads to: run again, a result without running, or an operator asked. */
export interface InDoubtOutcome {
  record: InDoubtRecord;
  result?: ToolResultItem;
  /** Set when the tool's policy is `'ask'`: the run pauses for an operator. */
  ask?: true;
}

/**
 * An operator's resolution of a call in doubt: its result without running it (`'result'`,
 * `'fail'`), or none (`'retry'`: the call runs again, same call id).
 */
export function operatorOutcome(call: ToolCallItem, decision: OperatorDecision): InDoubtOutcome {
  const { result, ...operator } = decision;
  if (decision.action === 'retry') return { record: { resolution: 'retried', operator } };
  if (decision.action === 'fail') {
    return { record: { resolution: 'failed', operator }, result: unknownOutcomeResult(call) };
  }
  return {
    record: { resolution: 'recorded', operator },
    result: {
      type: 'tool_result',
      callId: call.callId,
      name: call.name,
      output: renderToolOutput(result),
    },
  };
}

/**
 * Decides a call in doubt: run it again (no `result`), its result without running it, or (the
 * tool's policy is `'ask'`) `ask`: an operator decides.
 * A call of an unknown tool or with invalid arguments never ran its `execute`: it runs again
 * (and becomes the same error item).
 */
export async function resolveInDoubt(
  tools: ReadonlyMap<string, AnyTool>,
  call: ToolCallItem,
  context: RunContext,
  signal: AbortSignal,
): Promise<InDoubtOutcome> {
  const t = tools.get(call.name);
  const parsed = t && parseToolArguments(t, call.arguments);
  if (!t || !parsed?.ok) return { record: { resolution: 'retried' } };
  let reconcile: InDoubtRecord['reconcile'];
  if (t.reconcile) {
    let found: unknown;
    try {
      const options = { context, signal, callId: call.callId };
      found = await t.reconcile(
        { callId: call.callId, name: call.name, args: parsed.args },
        options,
      );
    } catch (error) {
      if (signal.aborted) throw error;
      // A failed lookup tells nothing: the fallback decides.
      reconcile = 'error';
    }
    if (reconcile === undefined) {
      if (!isReconcileOutcome(found)) {
        const { sessionId, runId } = context;
        throw new InvalidReconcileOutcomeError(call.name, call.callId, found, { sessionId, runId });
      }
      if (found === 'retry') return { record: { resolution: 'retried', reconcile: 'retry' } };
      if (found !== 'unknown') {
        const result: ToolResultItem = {
          type: 'tool_result',
          callId: call.callId,
          name: call.name,
          output: renderToolOutput(found.result),
        };
        return { record: { resolution: 'reconciled', reconcile: 'result' }, result };
      }
      reconcile = 'unknown';
    }
  }
  const tag = reconcile ? { reconcile } : {};
  switch (onInterruptedOf(t)) {
    case 'retry':
      return { record: { resolution: 'retried', ...tag } };
    case 'ask':
      // Not journaled: the run pauses and the call stays in doubt until an operator resolves it.
      return { record: { resolution: 'failed', ...tag }, ask: true };
    case 'fail':
      return { record: { resolution: 'failed', ...tag }, result: unknownOutcomeResult(call) };
  }
}
