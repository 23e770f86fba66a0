import type { CallState, RunMachineContext } from './run-types.js';
import type { ModelStepOutput } from './step-actor-io.js';
import { addUsage } from './run-usage.js';
import { contextPatch } from './context-patch.js';

/**
 * Pure helpers of the run machine for a turn's steps: what the run takes from its model step's
 * answer and from each finished tool call, and how its step actors are named and told which
 * agent they work for.
 */

/** Child id of a call's actor: its journal step, unique within the run even if call ids repeat. */
export const toolActorId = (call: Pick<CallState, 'step'>): string => `tool-${call.step}`;

/** The step input field naming the agent a run was handed off to (none while its own). */
export const activeAgentOf = (context: RunMachineContext): { agent?: string } =>
  context.activeAgent === undefined ? {} : { agent: context.activeAgent };

/** The run after its model step answered: the next turn, its usage, the calls it asked for. */
export function afterModelStep(
  context: RunMachineContext,
  out: ModelStepOutput,
): Partial<RunMachineContext> {
  const first = context.step + 1;
  return contextPatch(context, {
    turn: context.turn + 1,
    step: first + out.toolCalls.length,
    usage: addUsage(context.usage, out.usage),
    output: out.text,
    structured: out.structured,
    error: out.outputError,
    resultsAt: out.historyEnd,
    ...(out.guardrails ? { guardrails: [...(context.guardrails ?? []), ...out.guardrails] } : {}),
    checkOutput: out.outputGuardrails === true ? true : undefined,
    stepStarts: undefined, // the steps noted so far are journaled: only this turn's calls follow
    calls: out.toolCalls.map((c, i) => ({
      callId: c.callId,
      name: c.name,
      arguments: c.arguments,
      step: first + i,
      check: c.check,
      needsApproval: false,
      done: false,
      ...(c.subRun ? { subRun: c.subRun } : {}),
      ...(c.handoff ? { handoff: c.handoff } : {}),
    })),
  });
}

/**
 * The run after the tool call of child `actorId` finished (by the child's id, the call's step:
 * call ids may repeat). A handoff's call done gives the rest of the run to its agent.
 */
export function afterToolCall(
  context: RunMachineContext,
  actorId: string,
): Partial<RunMachineContext> {
  const call = context.calls.find((c) => toolActorId(c) === actorId);
  return {
    calls: context.calls.map((c) => (c === call ? { ...c, done: true } : c)),
    ...handoffOf(call),
  };
}

/** The run's agent once the call done: a handoff's call (not rejected) gives it to its agent. */
export const handoffOf = (call: CallState | undefined): { activeAgent?: string } =>
  call?.handoff && call.decision !== 'rejected' ? { activeAgent: call.handoff } : {};

/** The model step's answer, from its `onDone` event (read by the guards that route it). */
const answerOf = (event: unknown): ModelStepOutput => (event as { output: ModelStepOutput }).output;

/**
 * The run machine's guards on its model step's answer, read from the `onDone` event itself so
 * that one transition takes the answer in and goes where it leads (the calls to check, the
 * calls to run, an invalid output, the final answer). Each reads what `afterModelStep` stores.
 */
export const modelAnswerGuards = {
  /** The answer asks for calls, one of them with an approval check. */
  needsCheck: ({ event }: { event: unknown }) => answerOf(event).toolCalls.some((c) => c.check),
  /** The answer asks for calls. */
  hasCalls: ({ event }: { event: unknown }) => answerOf(event).toolCalls.length > 0,
  /** The final answer's structured output did not validate (stored as the run's error). */
  outputInvalid: ({ event }: { event: unknown }) => answerOf(event).outputError !== undefined,
};
