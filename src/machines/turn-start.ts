import type { RunMachineContext } from './run-types.js';
import { isSubRun } from './agent-path.js';
import { budgetExhausted } from './budget-left.js';
import { needsInputGuardrails } from './guardrail-steps.js';
import { handoffOf, toolActorId } from './turn-steps.js';

/**
 * Pure helpers of the run machine for a turn's start: the checks that stop a run (or precede
 * its model call) before its next turn, and what a turn's start clears. The `turnStart` state
 * runs them at a run's start and after a CONTINUE; the end of a turn's last tool call goes
 * straight on to the next model call when none of them applies (one transition, no stop in
 * `turnStart`).
 */

/** What the turn-start checks read of a run (the end of a tool call changes none of it). */
type TurnLimits = Pick<
  RunMachineContext,
  'agentPath' | 'turn' | 'maxTurns' | 'budget' | 'usage' | 'inputGuardrails' | 'guardrails'
>;

/** The run used its turns. */
export const maxTurnsReached = (run: TurnLimits): boolean => run.turn >= run.maxTurns;

/** A sub-agent run used its turns: it fails (its parent's model reads why). */
export const subRunOutOfTurns = (run: TurnLimits): boolean =>
  isSubRun(run.agentPath) && maxTurnsReached(run);

/** Nothing stops the run or precedes its next model call: its turn starts with the model. */
export const turnGoesOn = (run: TurnLimits): boolean =>
  !subRunOutOfTurns(run) &&
  !maxTurnsReached(run) &&
  !budgetExhausted(run) &&
  !needsInputGuardrails(run);

/**
 * What a turn's start clears: the last turn's interruption, error and calls (done by the
 * transitions that lead to `turnStart`, so that a run's start, whose context is clear, pays no
 * assign for it).
 */
export const turnCleared = (
  context: Pick<RunMachineContext, 'interruption' | 'error' | 'calls'>,
): Partial<RunMachineContext> => ({
  ...(context.interruption === undefined ? {} : { interruption: undefined }),
  ...(context.error === undefined ? {} : { error: undefined }),
  ...(context.calls.length === 0 ? {} : { calls: [] }),
});

/**
 * Whether the child `actorId` that ended holds the turn's last call still running, and the next
 * turn starts with the model: the run then goes from `tools` straight to `modelCall`.
 */
export const lastCallEndsTurn = (context: RunMachineContext, actorId: string): boolean =>
  context.calls.every((c) => c.done || toolActorId(c) === actorId) && turnGoesOn(context);

/**
 * The run after the turn's last tool call ended (child `actorId`) as its next turn starts: the
 * handoff it made, and what a turn's start clears (its calls, all done, are dropped).
 */
export function nextTurnAfterToolCall(
  context: RunMachineContext,
  actorId: string,
): Partial<RunMachineContext> {
  return {
    ...handoffOf(context.calls.find((c) => toolActorId(c) === actorId)),
    ...turnCleared(context),
  };
}
