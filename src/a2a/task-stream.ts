import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Agent } from '../agent/agent.js';
import type { RunStreamEvent } from '../agent/run-stream.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { journalEvents } from '../runs/attach-events.js';
import { runStreamEventOf } from '../http/attach-run-events.js';
import { agentMessage, CONVENTION_KEY, textPart } from './a2a-convention.js';
import { taskIdOf } from './a2a-task-id.js';
import { storedTask } from './stored-task.js';

/** The states after which a task's stream ends: terminal, or waiting for input. */
export function settled(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED ||
    state === TaskState.TASK_STATE_INPUT_REQUIRED
  );
}

/** Where a task's events come from and go to. */
export interface TaskStreamTarget {
  agent: Agent<unknown>;
  store: SessionStore;
  key: SessionKey;
  runId: string;
}

/**
 * The stream of a run this process just started or continued (`SendStreamingMessage`): the
 * task as it starts (working, with the message that started it), then the run's events as
 * they happen (`taskEvents`), then the answer artifact and the final status read from the
 * store. The run goes on if the client leaves.
 */
export async function* liveTaskStream(
  target: TaskStreamTarget,
  live: AsyncIterator<RunStreamEvent<unknown>>,
  sent: Message | undefined,
): AsyncGenerator<StreamResponse, void, undefined> {
  const ids = idsOf(target);
  yield { payload: { $case: 'task', value: startingTask(target, sent) } };
  for (;;) {
    const next = await live.next();
    if (next.done) break;
    const update = updateOf(next.value, target.runId, ids, undefined);
    if (update) yield update;
    if (next.value.type === 'run_finished') break;
  }
  yield* ending(target, undefined);
}

/**
 * A task's stream from the store, from any process (`SubscribeToTask`, a message sent again):
 * first the task as stored now (status, history, artifacts), then what its run does after
 * that point (`agent.attach` from the last journaled event the task already shows), each
 * update with its attach id in `metadata.agentstate.eventId`, then the answer artifact and the
 * final status. A subscriber that reconnects gets the task as it is and what follows: nothing
 * lost, nothing twice. A task already settled: the task alone.
 */
export async function* storedTaskStream(
  target: TaskStreamTarget,
  historyLength?: number,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { agent, store, key, runId } = target;
  const first = await storedTask(agent, store, key, runId, historyLength);
  yield { payload: { $case: 'task', value: first.task } };
  if (!first.current || settled(first.task.status?.state)) return;
  const entries = await store.readRunJournal(key, runId);
  const after = journalEvents(runId, entries, undefined, false).at(-1)?.id;
  const ids = idsOf(target);
  const events = agent.attach(key.sessionId, {
    userId: key.userId,
    store,
    ...(after === undefined ? {} : { after }),
  });
  for await (const event of events) {
    if (event.runId !== runId) return;
    if (event.type === 'run_ended') {
      yield* ending(target, event.id);
      return;
    }
    const update = updateOf(runStreamEventOf(event), runId, ids, event.id);
    if (update) yield update;
  }
}

/** A task as its run starts here: working, its history the message that started it. */
export function startingTask(target: TaskStreamTarget, sent: Message | undefined): Task {
  const ids = idsOf(target);
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
    artifacts: [],
    history: sent ? [{ ...sent, ...ids }] : [],
    metadata: undefined,
  };
}

function idsOf(target: TaskStreamTarget): { taskId: string; contextId: string } {
  const { key, runId } = target;
  return { taskId: taskIdOf({ sessionId: key.sessionId, runId }), contextId: key.sessionId };
}

/**
 * The working status update of one event of the run (`undefined`: a sub-run's, or one a client
 * has no use for): text as an agent message, a tool call or result named in the metadata.
 */
function updateOf(
  event: RunStreamEvent<unknown>,
  runId: string,
  ids: { taskId: string; contextId: string },
  eventId: string | undefined,
): StreamResponse | undefined {
  if (event.type === 'run_finished' || event.runId !== runId) return undefined;
  const working = (message: Message | undefined, about: object): StreamResponse => ({
    payload: {
      $case: 'statusUpdate',
      value: {
        ...ids,
        status: { state: TaskState.TASK_STATE_WORKING, message, timestamp: undefined },
        metadata: {
          [CONVENTION_KEY]: { ...(eventId === undefined ? {} : { eventId }), ...about },
        },
      },
    },
  });
  switch (event.type) {
    case 'text_delta':
      return working(
        agentMessage(eventId ?? `${ids.taskId}:text`, ids, [textPart(event.delta)]),
        {},
      );
    case 'tool_call_started':
      return working(undefined, {
        event: { type: 'tool_call', callId: event.callId, name: event.name },
      });
    case 'tool_call_finished':
      return working(undefined, {
        event: { type: 'tool_result', callId: event.callId, isError: event.isError },
      });
    case 'state_entered':
    case 'approval_requested':
      return undefined;
  }
}

/** How the stream ends: the answer artifact (completed), then the stored final status. */
async function* ending(
  target: TaskStreamTarget,
  eventId: string | undefined,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { agent, store, key, runId } = target;
  const { task } = await storedTask(agent, store, key, runId, 0);
  const ids = { taskId: task.id, contextId: task.contextId };
  const tagged = (id: string | undefined) => (id === undefined ? {} : { eventId: id });
  for (const artifact of task.artifacts) {
    yield {
      payload: {
        $case: 'artifactUpdate',
        value: {
          ...ids,
          artifact,
          append: false,
          lastChunk: true,
          metadata: {
            [CONVENTION_KEY]: tagged(
              eventId === undefined ? undefined : `${eventId}:${artifact.artifactId}`,
            ),
          },
        },
      },
    };
  }
  const convention = (task.metadata?.[CONVENTION_KEY] as Record<string, unknown> | undefined) ?? {};
  yield {
    payload: {
      $case: 'statusUpdate',
      value: {
        ...ids,
        status: task.status,
        metadata: { [CONVENTION_KEY]: { ...convention, ...tagged(eventId) } },
      },
    },
  };
}
