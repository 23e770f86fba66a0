import { isSubRun } from './agent-path.js';
import { budgetLeft } from './budget-left.js';
import { rejectionOf } from './call-approvals.js';
import type { CallState, RunMachineContext } from './run-types.js';
import type { ApprovalCheckInput, ModelStepInput, ToolCallInput } from './step-actor-io.js';
import { activeAgentOf } from './turn-steps.js';

/**
 * The inputs the run machine hands its step actors, built from its context: each names the
 * run and step, and, for a sub-agent run or a run handed off, the agent path and the agent.
 */

/** Which run a step works for: a sub-agent run's agent path, and the agent it was handed to. */
const scopeOf = (context: RunMachineContext): { path?: string[]; agent?: string } => ({
  ...(isSubRun(context.agentPath) ? { path: context.agentPath } : {}),
  ...activeAgentOf(context),
});

/** The model step of the run's next turn. */
export function modelStepInput(context: RunMachineContext): ModelStepInput {
  return {
    runId: context.runId,
    sessionId: context.sessionId,
    step: context.step,
    turn: context.turn,
    budgetLeft: budgetLeft(context),
    ...(isSubRun(context.agentPath) ? { path: context.agentPath, input: context.input } : {}),
    ...activeAgentOf(context),
    ...(context.modelSettings ? { modelSettings: context.modelSettings } : {}),
  };
}

/** The approval check of the turn's calls that declare one. */
export function approvalCheckInput(context: RunMachineContext): ApprovalCheckInput {
  return {
    runId: context.runId,
    step: context.step,
    calls: context.calls
      .filter((c) => c.check)
      .map(({ callId, name, arguments: args, step }) => ({ callId, name, arguments: args, step })),
    ...scopeOf(context),
  };
}

/** The tool call of the turn's call `index` (a rejected one is shown its rejection instead). */
export function toolCallInput(
  context: RunMachineContext,
  call: CallState,
  index: number,
): ToolCallInput {
  const rejection = rejectionOf(call);
  return {
    runId: context.runId,
    step: call.step,
    call: { callId: call.callId, name: call.name, arguments: call.arguments },
    rejection,
    ...(call.decision ? { approval: { decision: call.decision, reason: call.reason } } : {}),
    position: context.resultsAt === undefined ? undefined : context.resultsAt + index,
    ...scopeOf(context),
    ...(call.subResult && !rejection
      ? { subResult: { ...call.subResult, failParent: call.subRun?.failParent } }
      : {}),
    ...(call.inDoubt?.resolved ? { inDoubt: call.inDoubt.resolved } : {}),
  };
}
