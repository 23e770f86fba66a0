import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { RunUsage } from '../machines/run-usage.js';
import type { Interruption } from '../runs/run-state.js';
import { dataPart, textPart, type RemoteApproval, type RemoteUsage } from './a2a-convention.js';

/** The one key the convention's data parts and metadata entries sit under. */
export const CONVENTION_KEY = 'agentstate';

/**
 * The parts of a served task's `input-required` status message (what `approvalsOf` reads on
 * the calling side): the question in words (which tools, with which arguments, by which
 * agent, and how to answer) and the calls as the data part `{ agentstate: { approvals } }`.
 */
export function approvalParts(approvals: readonly RemoteApproval[]): Part[] {
  const lines = approvals.map(
    (a) =>
      `- ${(a.agentPath ?? []).join(' > ')} wants to call ${a.tool} with ${JSON.stringify(a.arguments)} (call ${a.callId})`,
  );
  const question =
    `Approval needed before the task goes on:\n${lines.join('\n')}\n` +
    "Answer on this task with 'approve' or 'reject' (optionally followed by a message), or with a data part { agentstate: { decisions: [{ callId, decision }] } }.";
  return [textPart(question), dataPart({ [CONVENTION_KEY]: { approvals } })];
}

/** The calls a paused run waits on, in the convention's shape (the agent path from the top). */
export function pendingApprovals(
  interruptions: readonly Interruption[],
  agentName: string,
): RemoteApproval[] {
  return interruptions.map((i) => ({
    callId: i.callId,
    tool: i.toolName,
    arguments: i.arguments,
    agentPath: i.agentPath ?? [agentName],
  }));
}

/** `{ agentstate: { usage } }`: a served task's metadata, what `usageOf` reads on the calling side. */
export function usageMetadata(usage: RunUsage): Record<string, unknown> {
  const value: RemoteUsage = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
  };
  return { [CONVENTION_KEY]: { usage: value } };
}

/** An agent message of a served task. */
export function agentMessage(
  messageId: string,
  ids: { taskId: string; contextId: string },
  parts: Part[],
): Message {
  return {
    messageId,
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
