import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';

/**
 * The protocol convention two agentstate agents keep over A2A (foreign agents get plain
 * text): a paused run's approvals travel as a data part `{ agentstate: { approvals } }` of
 * the `input-required` status message, the answer as `{ agentstate: { decisions } }`, and a
 * task's usage as `{ agentstate: { usage } }` in its metadata.
 */

/** One call a remote run waits on, as its `input-required` status lists it. */
export interface RemoteApproval {
  callId: string;
  tool: string;
  arguments?: unknown;
  agentPath?: readonly string[] | undefined;
}

/** A decision on one remote call, as the answer to `input-required` carries it. */
export interface RemoteDecision {
  callId: string;
  decision: 'approve' | 'reject';
  message?: string | undefined;
}

/** A remote task's usage, as its metadata reports it (its run's, sub-runs included). */
export interface RemoteUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number | undefined;
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

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** A user message of the caller. */
export function userMessage(
  ids: { messageId: string; contextId: string; taskId?: string | undefined },
  parts: Part[],
): Message {
  return {
    messageId: ids.messageId,
    contextId: ids.contextId,
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text parts of some parts, joined. */
export const textOf = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');

const agentstateOf = (value: unknown): Record<string, unknown> | undefined => {
  const inner = (value as { agentstate?: unknown } | null | undefined)?.agentstate;
  return inner !== null && typeof inner === 'object'
    ? (inner as Record<string, unknown>)
    : undefined;
};

/** The approvals a status message lists (none from a foreign agent). */
export function approvalsOf(message: Message | undefined): RemoteApproval[] {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case !== 'data') continue;
    const approvals = agentstateOf(part.content.value)?.approvals;
    if (!Array.isArray(approvals)) continue;
    return approvals.filter(
      (a): a is RemoteApproval =>
        typeof (a as RemoteApproval | null)?.callId === 'string' &&
        typeof (a as RemoteApproval).tool === 'string',
    );
  }
  return [];
}

/** The answer to `input-required`: a data part with the decisions and a text for humans. */
export function decisionParts(
  approvals: readonly RemoteApproval[],
  decision: 'approve' | 'reject',
  message: string | undefined,
): Part[] {
  const decisions: RemoteDecision[] = approvals.map((a) => ({
    callId: a.callId,
    decision,
    ...(message === undefined ? {} : { message }),
  }));
  const text = message === undefined ? decision : `${decision} ${message}`;
  return decisions.length > 0
    ? [textPart(text), dataPart({ agentstate: { decisions } })]
    : [textPart(text)];
}

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0;

/** A task's usage, from its metadata or its status message's (zero when it reports none). */
export function usageOf(task: Task): RemoteUsage {
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

/** A task's answer: its artifacts' text, else its status message's. */
export const answerOf = (task: Task): string =>
  task.artifacts
    .map((a) => textOf(a.parts))
    .filter(Boolean)
    .join('\n') || textOf(task.status?.message?.parts);
