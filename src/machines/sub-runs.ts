import type {
  CallState,
  RunMachineContext,
  RunMachineInput,
  RunMachineOutput,
  StandingDecision,
} from './run-types.js';
import { budgetLeft, type RunBudget } from './budget-left.js';
import type { SubRunSummary } from './sub-run-types.js';
import { addUsage } from './run-usage.js';
import { agentPathOf } from './agent-path.js';

/**
 * Pure helpers of the run machine for sub-agent calls: what a child run starts with, and what
 * its parent takes from it when it ends. A child is the run machine again, spawned as the
 * child `agent-<step>` of its parent's run actor, so its snapshot nests in the parent's.
 */

/** Child actor id of a sub-agent call: its journal step, like `tool-<step>` for a tool. */
export const subRunActorId = (call: Pick<CallState, 'step'>): string => `agent-${call.step}`;

/** Whether a child actor id is a sub-agent run's. */
export const isSubRunActor = (actorId: string): boolean => actorId.startsWith('agent-');

/** A decision event for this run (no `runId`, or this run's), not one of its sub-agents'. */
export const forThisRun = (
  context: RunMachineContext,
  event: { runId?: string | undefined },
): boolean => event.runId === undefined || event.runId === context.runId;

/** Ids of the sub-agent runs in flight under a run actor. */
export const subRunIds = (self: { getSnapshot(): { children: object } }): string[] =>
  Object.keys(self.getSnapshot().children).filter(isSubRunActor);

/** Standing decisions of one sub-agent are kept under `<agent>/<tool>` in its parent's. */
const decisionPrefix = (agent: string): string => `${agent}/`;

/** What is left of the parent's budget: the child may spend at most that. */
function budgetForChild(context: RunMachineContext): RunBudget {
  const left = budgetLeft(context);
  return {
    ...(left?.tokens === undefined ? {} : { maxTokens: left.tokens }),
    ...(left?.costUsd === undefined ? {} : { maxCostUsd: left.costUsd }),
  };
}

/** The parent's standing decisions about the child agent's tools, keyed by tool name. */
function decisionsForChild(
  context: RunMachineContext,
  agent: string,
): Record<string, StandingDecision> {
  const prefix = decisionPrefix(agent);
  const all = { ...context.standingDecisions, ...context.newDecisions };
  const out: Record<string, StandingDecision> = {};
  for (const [key, decision] of Object.entries(all)) {
    if (key.startsWith(prefix)) out[key.slice(prefix.length)] = decision;
  }
  return out;
}

/** The input of the child run a sub-agent call starts. */
export function childRunInput(context: RunMachineContext, call: CallState): RunMachineInput {
  const spec = call.subRun!;
  return {
    runId: spec.runId,
    sessionId: context.sessionId,
    agentName: spec.name,
    maxTurns: spec.maxTurns,
    historyStart: 0,
    inputCount: 1,
    startedAt: spec.startedAt,
    budget: budgetForChild(context),
    standingDecisions: decisionsForChild(context, spec.name),
    ...(spec.metadata ? { metadata: spec.metadata } : {}),
    agentPath: [...agentPathOf(context), spec.name],
    input: spec.input,
    ...(spec.inputGuardrails ? { inputGuardrails: true } : {}),
    ...(spec.definition ? { definition: spec.definition } : {}),
  };
}

/** What the parent takes from a child run that ended: its outcome, usage, decisions, runs. */
export function afterSubRun(
  context: RunMachineContext,
  actorId: string,
  output: RunMachineOutput,
): Partial<RunMachineContext> {
  const call = context.calls.find((c) => subRunActorId(c) === actorId);
  if (!call?.subRun) return {};
  const prefix = decisionPrefix(call.subRun.name);
  const newDecisions = { ...context.newDecisions };
  for (const [tool, decision] of Object.entries(output.newDecisions)) {
    newDecisions[prefix + tool] = decision;
  }
  const summary: SubRunSummary = {
    runId: output.runId,
    agentPath: output.agentPath ?? [...agentPathOf(context), output.agentName],
    status: output.status,
    turns: output.turn,
    usage: output.usage,
    ...(output.output === undefined ? {} : { output: output.output }),
    ...(output.error === undefined ? {} : { error: output.error }),
  };
  return {
    usage: addUsage(context.usage, output.usage),
    newDecisions,
    subRuns: [...(context.subRuns ?? []), summary, ...(output.subRuns ?? [])],
    calls: context.calls.map((c) =>
      c === call
        ? {
            ...c,
            subResult: {
              status: output.status,
              ...(output.output === undefined ? {} : { output: output.output }),
              ...(output.structured === undefined ? {} : { structured: output.structured }),
              ...(output.error === undefined ? {} : { error: output.error }),
            },
          }
        : c,
    ),
  };
}
