import { setTimeout as wait } from 'node:timers/promises';
import { TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import { isSettled } from './a2a-convention.js';

/** What one exchange with a remote task ends with: the task as it settled, or a plain answer. */
export type Settled = { task: Task } | { message: Message };

/** Where the exchange of a model step goes, and the call options of its requests. */
export interface Exchange {
  client: Client;
  options: RequestOptions;
  /** How long to wait before asking again when a subscription ends with nothing settled. */
  pollMs: number;
}

const LIST_PAGE = 100;

/**
 * The task the first message of `contextId` started, if one did: a context id is the caller's
 * own (one per sub-agent run), so any task in it is the one its first message created.
 */
export async function taskOfContext(ex: Exchange, contextId: string): Promise<Task | undefined> {
  const listed = await ex.client.listTasks(
    {
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: LIST_PAGE,
      pageToken: '',
      statusTimestampAfter: undefined,
      historyLength: 0,
      includeArtifacts: false,
    },
    ex.options,
  );
  return listed.tasks.find((t) => t.contextId === contextId) ?? listed.tasks[0];
}

/** A task as a stream tells it: its first `task` event, then status and artifact updates. */
function applied(view: Task | undefined, event: StreamResponse): Task | undefined {
  const p = event.payload;
  if (!p || p.$case === 'message') return view;
  if (p.$case === 'task') return p.value;
  const base: Task = view ?? {
    id: p.value.taskId,
    contextId: p.value.contextId,
    status: undefined,
    artifacts: [],
    history: [],
    metadata: undefined,
  };
  const metadata = p.value.metadata ? { ...base.metadata, ...p.value.metadata } : base.metadata;
  if (p.$case === 'statusUpdate') return { ...base, status: p.value.status, metadata };
  const artifact = p.value.artifact;
  if (!artifact) return base;
  const before = base.artifacts.find((a) => a.artifactId === artifact.artifactId);
  const merged =
    before && p.value.append
      ? { ...before, parts: [...before.parts, ...artifact.parts] }
      : artifact;
  const others = base.artifacts.filter((a) => a.artifactId !== artifact.artifactId);
  return { ...base, artifacts: [...others, merged], metadata };
}

/**
 * Reads a stream of task events until the task settles (`isDone`): the task as the events
 * told it, or the plain message a remote answered with; `undefined` if the stream ended first.
 */
async function follow(
  stream: AsyncIterable<StreamResponse>,
  seed: Task | undefined,
  isDone: (task: Task) => boolean,
): Promise<{ settled?: Settled; view?: Task | undefined }> {
  let view = seed;
  for await (const event of stream) {
    if (event.payload?.$case === 'message') return { settled: { message: event.payload.value } };
    view = applied(view, event);
    if (view && isSettled(view.status?.state) && isDone(view)) return { settled: { task: view } };
  }
  return { view };
}

/**
 * Sends `message` and follows the task it starts or continues until it settles (ends, or waits
 * on its caller with a question `isStale` does not call the old one).
 */
export async function sendAndSettle(
  ex: Exchange,
  message: Message,
  isStale: (task: Task) => boolean,
): Promise<Settled> {
  const params = { tenant: '', message, configuration: undefined, metadata: undefined };
  const stream = ex.client.sendMessageStream(params, ex.options);
  const { settled, view } = await follow(stream, undefined, (t) => !isStale(t));
  if (settled) return settled;
  const taskId = view?.id || message.taskId;
  if (!taskId) throw new Error('the remote agent answered with neither a task nor a message');
  return { task: await settle(ex, taskId, isStale) };
}

/**
 * Follows a task until it settles: reads it and, while it works, subscribes to it, reading it
 * again when a subscription ends before it settled (after `pollMs`). `isStale` says a
 * settled-looking task still shows the question this step answered (not yet read remotely).
 */
export async function settle(
  ex: Exchange,
  taskId: string,
  isStale: (task: Task) => boolean,
): Promise<Task> {
  const isDone = (t: Task) => !isStale(t);
  for (;;) {
    const task = await ex.client.getTask({ tenant: '', id: taskId }, ex.options);
    if (isSettled(task.status?.state) && isDone(task)) return task;
    try {
      const stream = ex.client.resubscribeTask({ tenant: '', id: taskId }, ex.options);
      const { settled } = await follow(stream, task, isDone);
      if (settled && 'task' in settled) return settled.task;
    } catch (error) {
      ex.options.signal?.throwIfAborted();
      if (!isEndedError(error)) throw error;
    }
    await wait(ex.pollMs, undefined, { signal: ex.options.signal });
  }
}

/** A subscription refused because the task already ended or no longer runs (read it instead). */
const isEndedError = (error: unknown): boolean =>
  /terminal|final|not.*(active|running|found)|unsupported|no active/i.test(
    String((error as Error)?.message),
  );
