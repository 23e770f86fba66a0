import type { CallState, RunMachineContext } from './run-types.js';
import type { ModelStepOutput } from './step-actor-io.js';
import { addUsage } from './run-usage.js';

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
  return {
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
  };
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
    ...(call?.handoff && call.decision !== 'rejected' ? { activeAgent: call.handoff } : {}),
  };
}
