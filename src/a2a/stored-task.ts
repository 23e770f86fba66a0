import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Task,
  type TaskStatus,
} from '@a2a-js/sdk';
import type { Agent } from '../agent/agent.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { Item } from '../items/item.js';
import { zeroUsage, type RunUsage } from '../machines/run-usage.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { ModelStepOutput } from '../machines/step-actor-io.js';
import type { RunStatusView } from '../runs/run-status.js';
import type { SessionView } from '../runs/session-view.js';
import {
  agentMessage,
  approvalParts,
  pausedApprovals,
  textPart,
  usageMetadata,
} from './a2a-convention.js';
import { taskIdOf } from './a2a-task-id.js';
import { notFound } from './task-not-found.js';

/** The id of the artifact that holds a completed task's answer. */
export const ANSWER_ARTIFACT_ID = 'answer';

/** A task as the store holds it, and the session view it was read from. */
export interface StoredTask {
  task: Task;
  /** The task's run is the session's current (else last) run. */
  current: boolean;
  /** The run's status when it is the current one. */
  status: RunStatusView | undefined;
}

/**
 * Reads a task (a session's run) from the store, as any process sees it: its state from the
 * run's status (`running` / `crashed` working, `awaitingApproval` input-required with the
 * approvals, `completed`, `failed` and an `interrupted` run failed with its error, `cancelled`
 * canceled), its history (the run's items: the user's input and the agent's text), the answer
 * as an artifact once completed, the run's usage in its metadata. A run before the session's
 * last one is read from its journal (completed, its last text the answer). Another user's
 * session, a missing one or a run the session does not have: the A2A `TaskNotFoundError`.
 */
export async function storedTask(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  runId: string,
  historyLength?: number,
): Promise<StoredTask> {
  const view = await sessionView(agent, store, key, runId);
  const ids = { taskId: taskIdOf({ sessionId: key.sessionId, runId }), contextId: key.sessionId };
  const timestamp = new Date(view.updatedAt).toISOString();
  const status = view.runStatus;
  if (status?.runId === runId) {
    const { state, message } = stateOf(status, ids, agent.options.name);
    const output = state === TaskState.TASK_STATE_COMPLETED ? view.lastRun?.output : undefined;
    const items = await runItems(store, key, view);
    return {
      task: taskOf(ids, { state, message, timestamp }, items, output, status.usage, historyLength),
      current: true,
      status,
    };
  }
  const entries = await store.readRunJournal(key, runId);
  if (entries.length === 0) throw notFound(ids.taskId);
  const texts = entries
    .filter((e) => e.kind === 'model')
    .sort((a, b) => a.step - b.step)
    .map((e) => (e.output as ModelStepOutput).text ?? '')
    .filter((t) => t !== '');
  const state = TaskState.TASK_STATE_COMPLETED;
  const task = taskOf(
    ids,
    { state, message: undefined, timestamp },
    [],
    texts.at(-1),
    zeroUsage(),
    0,
  );
  return { task, current: false, status: undefined };
}

async function sessionView(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  runId: string,
): Promise<SessionView> {
  try {
    return await agent.runtimeFor(store).getSession(key);
  } catch (error) {
    if (error instanceof SessionNotFoundError) {
      throw notFound(taskIdOf({ sessionId: key.sessionId, runId }));
    }
    throw error;
  }
}

/** A task's state and status message from its run's status. */
export function stateOf(
  status: RunStatusView,
  ids: { taskId: string; contextId: string },
  agentName: string,
): { state: TaskState; message: Message | undefined } {
  switch (status.status) {
    case 'running':
    case 'crashed':
      return { state: TaskState.TASK_STATE_WORKING, message: undefined };
    case 'awaitingApproval': {
      const approvals = pausedApprovals(status.interruptions, agentName);
      const message = agentMessage(`${ids.taskId}:input`, ids, approvalParts(approvals));
      return { state: TaskState.TASK_STATE_INPUT_REQUIRED, message };
    }
    case 'completed':
      return { state: TaskState.TASK_STATE_COMPLETED, message: undefined };
    case 'cancelled':
      return { state: TaskState.TASK_STATE_CANCELED, message: undefined };
    case 'interrupted':
      if (status.interruption === 'in_doubt' && status.callsInDoubt?.length) {
        // Calls cut off by a crash whose tools ask: an operator's answer, like an approval.
        const approvals = status.callsInDoubt.map((c) => ({
          callId: c.callId,
          tool: c.toolName,
          arguments: c.arguments,
          agentPath: c.agentPath ?? [agentName],
        }));
        const message = agentMessage(`${ids.taskId}:input`, ids, approvalParts(approvals));
        return { state: TaskState.TASK_STATE_INPUT_REQUIRED, message };
      }
      return failedState(status, ids);
    case 'failed':
      return failedState(status, ids);
  }
}

function failedState(
  status: RunStatusView,
  ids: { taskId: string; contextId: string },
): { state: TaskState; message: Message | undefined } {
  const why = status.error
    ? `${status.error.code ?? status.error.name}: ${status.error.message}`
    : `The run stopped (${status.interruption ?? 'failed'})`;
  const message = agentMessage(`${ids.taskId}:failed`, ids, [textPart(why)]);
  return { state: TaskState.TASK_STATE_FAILED, message };
}

function taskOf(
  ids: { taskId: string; contextId: string },
  status: TaskStatus,
  items: readonly Item[],
  output: string | undefined,
  usage: RunUsage,
  historyLength: number | undefined,
): Task {
  const history = historyOf(ids, items);
  const artifacts: Artifact[] =
    output === undefined
      ? []
      : [
          {
            artifactId: ANSWER_ARTIFACT_ID,
            name: 'answer',
            description: '',
            parts: [textPart(output)],
            metadata: undefined,
            extensions: [],
          },
        ];
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status,
    artifacts,
    history:
      historyLength === undefined
        ? history
        : historyLength === 0
          ? []
          : history.slice(-historyLength),
    metadata: usageMetadata(usage),
  };
}

/** The run's items, from where its input starts to the end of the history. */
async function runItems(store: SessionStore, key: SessionKey, view: SessionView): Promise<Item[]> {
  const start = view.run?.context.historyStart ?? view.lastRun?.historyStart;
  if (start === undefined) return [];
  return store.readHistory(key, start);
}

/** The run's user and agent text as A2A messages, ids from their place in the history. */
function historyOf(ids: { taskId: string; contextId: string }, items: readonly Item[]): Message[] {
  const out: Message[] = [];
  items.forEach((item, i) => {
    if (item.type !== 'message') return;
    if (item.role !== 'user' && item.role !== 'assistant') return;
    const text =
      typeof item.content === 'string'
        ? item.content
        : item.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    if (text === '') return;
    out.push({
      ...agentMessage(`${ids.taskId}:${i}`, ids, [textPart(text)]),
      role: item.role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
    });
  });
  return out;
}
