import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { RunUsage } from '../machines/run-usage.js';
import type { Interruption } from '../runs/run-state.js';

/**
 * The agentstate convention on A2A (both sides keep it; a foreign client reads the text parts):
 * a data part or metadata entry under the one key `agentstate`.
 */
export const CONVENTION_KEY = 'agentstate';

/** One call a paused task waits on, as its `input-required` status message lists it. */
export interface A2AApproval {
  callId: string;
  tool: string;
  /** The call's arguments (parsed JSON, else the raw text). */
  arguments: unknown;
  /** The agents from the served one down to the one whose call it is. */
  agentPath: string[];
}

/** One answer to an approval, as a decision message carries it. */
export interface A2ADecision {
  callId: string;
  decision: 'approve' | 'reject';
  message?: string | undefined;
}

/** A run's usage as a task's metadata carries it (sub-runs included). */
export interface A2AUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number | undefined;
}

/** `{ agentstate: { usage } }`: the task metadata a caller rolls up. */
export function usageMetadata(usage: RunUsage): Record<string, unknown> {
  const value: A2AUsage = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
  };
  return { [CONVENTION_KEY]: { usage: value } };
}

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: '',
  };
}

/** A JSON data part. */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** An agent message of a task. */
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

/** The approvals of a paused run in the convention's shape. */
export function approvalsOf(
  interruptions: readonly Interruption[],
  agentName: string,
): A2AApproval[] {
  return interruptions.map((i) => ({
    callId: i.callId,
    tool: i.toolName,
    arguments: i.arguments,
    agentPath: i.agentPath ?? [agentName],
  }));
}

/**
 * The parts of an `input-required` status message: the question in words (which tools, with
 * which arguments, by which agent) and the calls as data, with how to answer.
 */
export function approvalParts(approvals: readonly A2AApproval[]): Part[] {
  const lines = approvals.map(
    (a) =>
      `- ${a.agentPath.join(' > ')} wants to call ${a.tool} with ${JSON.stringify(a.arguments)} (call ${a.callId})`,
  );
  const question =
    `Approval needed before the task goes on:\n${lines.join('\n')}\n` +
    "Answer on this task with 'approve' or 'reject' (optionally followed by a message), or with a data part { agentstate: { decisions: [{ callId, decision }] } }.";
  return [textPart(question), dataPart({ [CONVENTION_KEY]: { approvals } })];
}
