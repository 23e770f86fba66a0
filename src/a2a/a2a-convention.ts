import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { RunUsage } from '../machines/run-usage.js';
import type { Interruption } from '../runs/run-state.js';

/**
 * The protocol convention two agentstate agents keep over A2A (a foreign agent or client reads
 * the text parts): a data part or metadata entry under the one key `agentstate`. A paused run's
 * approvals travel as `{ agentstate: { approvals } }` in the `input-required` status message,
 * the answer as `{ agentstate: { decisions } }`, and a task's usage as `{ agentstate: { usage } }`
 * in its metadata. Both sides use this file: the server (`createA2AHandler`) writes what the
 * caller (`remoteAgent`) reads.
 */
export const CONVENTION_KEY = 'agentstate';

/** One call a paused task waits on, as its `input-required` status message lists it. */
export interface A2AApproval {
  callId: string;
  tool: string;
  /** The call's arguments (parsed JSON, else the raw text). */
  arguments?: unknown;
  /** The agents from the served one down to the one whose call it is. */
  agentPath?: readonly string[] | undefined;
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

/** The states a task stays in only until something changes them. */
const ACTIVE = new Set([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]);

/** Whether a task (or status) state waits for nobody: ended, or waiting on its caller. */
export const isSettled = (state: TaskState | undefined): boolean =>
  state !== undefined &&
  state !== TaskState.TASK_STATE_UNSPECIFIED &&
  state !== TaskState.UNRECOGNIZED &&
  !ACTIVE.has(state);

/** A state's name in the A2A docs (`input-required`, `failed`, ...). */
export const stateName = (state: TaskState | undefined): string =>
  TaskState[state ?? TaskState.TASK_STATE_UNSPECIFIED]
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** A text part. */
export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A JSON data part. */
export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A message of a task: the caller's (`user`) or the served agent's (`agent`). */
function message(
  role: Role,
  ids: { messageId: string; contextId: string; taskId?: string | undefined },
  parts: Part[],
): Message {
  return {
    messageId: ids.messageId,
    contextId: ids.contextId,
    taskId: ids.taskId ?? '',
    role,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A user message of the caller. */
export const userMessage = (
  ids: { messageId: string; contextId: string; taskId?: string | undefined },
  parts: Part[],
): Message => message(Role.ROLE_USER, ids, parts);

/** An agent message of a task. */
export const agentMessage = (
  messageId: string,
  ids: { taskId: string; contextId: string },
  parts: Part[],
): Message => message(Role.ROLE_AGENT, { messageId, ...ids }, parts);

/** The text parts of some parts, joined. */
export const textOf = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');

const agentstateOf = (value: unknown): Record<string, unknown> | undefined => {
  const inner = (value as Record<string, unknown> | null | undefined)?.[CONVENTION_KEY];
  return inner !== null && typeof inner === 'object'
    ? (inner as Record<string, unknown>)
    : undefined;
};

/** Server side: the approvals of a paused run in the convention's shape. */
export function pausedApprovals(
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
 * Server side: the parts of an `input-required` status message: the question in words (which
 * tools, with which arguments, by which agent) and the calls as data, with how to answer.
 */
export function approvalParts(approvals: readonly A2AApproval[]): Part[] {
  const lines = approvals.map(
    (a) =>
      `- ${(a.agentPath ?? []).join(' > ')} wants to call ${a.tool} with ${JSON.stringify(a.arguments)} (call ${a.callId})`,
  );
  const question =
    `Approval needed before the task goes on:\n${lines.join('\n')}\n` +
    "Answer on this task with 'approve' or 'reject' (optionally followed by a message), or with a data part { agentstate: { decisions: [{ callId, decision }] } }.";
  return [textPart(question), dataPart({ [CONVENTION_KEY]: { approvals } })];
}

/** Caller side: the approvals a status message lists (none from a foreign agent). */
export function approvalsIn(message: Message | undefined): A2AApproval[] {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case !== 'data') continue;
    const approvals = agentstateOf(part.content.value)?.approvals;
    if (!Array.isArray(approvals)) continue;
    return approvals.filter(
      (a): a is A2AApproval =>
        typeof (a as A2AApproval | null)?.callId === 'string' &&
        typeof (a as A2AApproval).tool === 'string',
    );
  }
  return [];
}

/** Caller side: the answer to `input-required`: a data part with the decisions and a text for humans. */
export function decisionParts(
  approvals: readonly A2AApproval[],
  decision: 'approve' | 'reject',
  message: string | undefined,
): Part[] {
  const decisions: A2ADecision[] = approvals.map((a) => ({
    callId: a.callId,
    decision,
    ...(message === undefined ? {} : { message }),
  }));
  const text = message === undefined ? decision : `${decision} ${message}`;
  return decisions.length > 0
    ? [textPart(text), dataPart({ [CONVENTION_KEY]: { decisions } })]
    : [textPart(text)];
}

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0;

/** Caller side: a task's usage, from its metadata or its status message's (zero when it reports none). */
export function usageOf(task: Task): A2AUsage {
  const found =
    agentstateOf(task.metadata)?.usage ?? agentstateOf(task.status?.message?.metadata)?.usage;
  const usage = (found ?? {}) as Record<string, unknown>;
  const cost = usage.costUsd;
  return {
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    ...(typeof cost === 'number' && Number.isFinite(cost) ? { costUsd: cost } : {}),
  };
}

/** Caller side: a task's answer: its artifacts' text, else its status message's. */
export const answerOf = (task: Task): string =>
  task.artifacts
    .map((a) => textOf(a.parts))
    .filter(Boolean)
    .join('\n') || textOf(task.status?.message?.parts);
