import type { CallState, RunMachineContext } from './run-types.js';
import type { ToolCallOutput } from './step-actor-io.js';
import type { OperatorDecision } from '../items/in-doubt-record.js';
import { toolActorId } from './turn-steps.js';

/**
 * Pure helpers of the run machine for calls in doubt whose tool asks an operator
 * (`onInterrupted: 'ask'`): the call waits, the run pauses once nothing else runs (interruption
 * `in_doubt`), an operator's resolution lets the call run on with it.
 */

/** The call waits for an operator's resolution. */
export const askingOperator = (call: CallState): boolean =>
  call.inDoubt !== undefined && call.inDoubt.resolved === undefined;

/** Every call of the turn is done or waits for an operator, and one does: the run pauses. */
export const awaitingOperator = (context: RunMachineContext): boolean =>
  context.calls.some(askingOperator) && context.calls.every((c) => c.done || askingOperator(c));

/** The run can go on with its calls: it paused for calls in doubt, all resolved, none held. */
export const inDoubtResolved = (context: RunMachineContext): boolean =>
  context.interruption === 'in_doubt' &&
  context.held !== true &&
  !context.calls.some(askingOperator);

/** The run after the call of child `actorId` asked an operator (`ask` of its output). */
export function afterAsk(
  context: RunMachineContext,
  actorId: string,
  ask: NonNullable<ToolCallOutput['ask']>,
): Partial<RunMachineContext> {
  return {
    calls: context.calls.map((c) =>
      toolActorId(c) === actorId
        ? { ...c, inDoubt: ask.reconcile ? { reconcile: ask.reconcile } : {} }
        : c,
    ),
  };
}

/** The run with the operator's resolution of call `callId` recorded. */
export function withResolution(
  context: RunMachineContext,
  callId: string,
  resolution: OperatorDecision,
): Partial<RunMachineContext> {
  return {
    calls: context.calls.map((c) =>
      c.callId === callId && askingOperator(c)
        ? { ...c, inDoubt: { ...c.inDoubt, resolved: resolution } }
        : c,
    ),
  };
}
