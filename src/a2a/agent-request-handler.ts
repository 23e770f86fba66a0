import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Agent } from '../agent/agent.js';
import type { AnsweredMessage } from '../machines/answered-messages.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { TraceCarrier } from '../machines/run-types.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { a2aErrorOf } from './a2a-error.js';
import { resolveTask } from './a2a-task-id.js';
import { turnOf } from './a2a-turn.js';
import { storedTask } from './stored-task.js';
import { startTurn } from './start-turn.js';
import { liveTaskStream, settled, startingTask, storedTaskStream } from './task-stream.js';

/** The user a call is for, as `createA2AHandler` puts it in the call's context. */
export function userOf(context: ServerCallContext): string {
  const userId = context.user?.userName;
  if (!userId) throw new Error('A2A call without a user');
  return userId;
}

/** Where `createA2AHandler` keeps the caller's trace context in a call's context. */
export const TRACE_STATE_KEY = 'agentstate.trace';

/** The caller's trace context (`traceparent`, `tracestate`), if its request carried one. */
function traceOf(context: ServerCallContext): TraceCarrier | undefined {
  return context.state.get(TRACE_STATE_KEY) as TraceCarrier | undefined;
}

/** What the handler reaches: the agent, its store and the card it serves. */
export interface AgentRequestHandlerDeps {
  agent: Agent<unknown>;
  store: SessionStore;
  card: AgentCard;
}

/**
 * The A2A request handler over an agent's public calls, holding no task state of its own:
 * every answer is read from the store (`storedTask`, `taskStream`), so any process with the
 * store answers `GetTask`, `CancelTask`, `SubscribeToTask` and `ListTasks` for any task. A
 * message starts a run (`agent.stream` with the message id: sent twice, it runs once and
 * answers the same task); a message on a paused task decides its approvals
 * (`agent.streamDecide`); the run goes on in this process whatever the client does.
 */
export class AgentRequestHandler implements A2ARequestHandler {
  constructor(private readonly deps: AgentRequestHandlerDeps) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.deps.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError('No extended agent card'));
  }

  async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const { agent, store } = this.deps;
    try {
      const turn = turnOf(params);
      const { key, runId, live } = await startTurn(
        this.deps,
        turn,
        userOf(context),
        traceOf(context),
      );
      const immediately = params.configuration?.returnImmediately === true;
      if (live && immediately) {
        // The run goes on here; the task as it starts (the store may not hold it yet).
        void drain(live);
        const sent = turn.kind === 'message' ? params.message : undefined;
        return startingTask({ agent, store, key, runId }, sent);
      }
      if (live) await drain(live);
      else if (!immediately) await this.untilSettled(key, runId);
      const history = params.configuration?.historyLength;
      return (await storedTask(agent, store, key, runId, history)).task;
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { agent, store } = this.deps;
    try {
      const turn = turnOf(params);
      const { key, runId, live } = await startTurn(
        this.deps,
        turn,
        userOf(context),
        traceOf(context),
      );
      const target = { agent, store, key, runId };
      if (!live) yield* storedTaskStream(target, params.configuration?.historyLength);
      else {
        try {
          yield* liveTaskStream(target, live, turn.kind === 'message' ? params.message : undefined);
        } finally {
          // A client that left: the run goes on, its events read by no one.
          void drain(live);
        }
      }
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const { agent, store } = this.deps;
    try {
      const { key, runId } = resolveTask(params.id, userOf(context));
      return (await storedTask(agent, store, key, runId, params.historyLength)).task;
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const { agent, store } = this.deps;
    try {
      const { key, runId } = resolveTask(params.id, userOf(context));
      const before = await storedTask(agent, store, key, runId);
      const state = before.task.status?.state;
      if (!before.current || (settled(state) && state !== TaskState.TASK_STATE_INPUT_REQUIRED)) {
        throw new TaskNotCancelableError(`Task "${params.id}" has ended`);
      }
      await agent.cancel(key.sessionId, { userId: key.userId, store });
      return (await storedTask(agent, store, key, runId)).task;
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { agent, store } = this.deps;
    try {
      const { key, runId } = resolveTask(params.id, userOf(context));
      yield* storedTaskStream({ agent, store, key, runId });
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async listTasks(
    params: ListTasksRequest,
    context: ServerCallContext,
  ): Promise<ListTasksResponse> {
    const { agent, store } = this.deps;
    try {
      const userId = userOf(context);
      const pageSize = params.pageSize ?? 50;
      const refs =
        params.contextId === ''
          ? await this.lastRuns(userId, pageSize)
          : await this.runsOf({ sessionId: params.contextId, userId });
      const tasks: Task[] = [];
      for (const ref of refs) {
        const { task } = await storedTask(
          agent,
          store,
          ref.key,
          ref.runId,
          params.historyLength ?? 0,
        );
        const wanted = params.status === TaskState.TASK_STATE_UNSPECIFIED;
        if (wanted || task.status?.state === params.status) tasks.push(task);
      }
      const page = tasks.slice(0, pageSize);
      return { tasks: page, nextPageToken: '', pageSize, totalSize: page.length };
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(
      new PushNotificationNotSupportedError('Push notifications are not supported'),
    );
  }

  getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(
      new PushNotificationNotSupportedError('Push notifications are not supported'),
    );
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return Promise.reject(
      new PushNotificationNotSupportedError('Push notifications are not supported'),
    );
  }

  deleteTaskPushNotificationConfig(): Promise<void> {
    return Promise.reject(
      new PushNotificationNotSupportedError('Push notifications are not supported'),
    );
  }

  /** Waits until the run pauses or ends, following it wherever it runs. */
  private async untilSettled(key: SessionKey, runId: string): Promise<void> {
    const { agent, store } = this.deps;
    for await (const event of agent.attach(key.sessionId, { userId: key.userId, store })) {
      if (event.runId !== runId || event.type === 'run_ended') return;
    }
  }

  /** The session's runs this handler can name: the answered messages' runs, then its current. */
  private async runsOf(key: SessionKey): Promise<{ key: SessionKey; runId: string }[]> {
    const { agent, store } = this.deps;
    let record;
    try {
      record = await store.load(key);
    } catch (error) {
      // A context this user does not have lists no task (another user's, as a missing one).
      if (error instanceof SessionNotFoundError) return [];
      throw error;
    }
    const answered =
      (record.snapshot as { context?: { answered?: AnsweredMessage[] } }).context?.answered ?? [];
    const view = await agent.runtimeFor(store).getSession(key);
    const runIds = [...answered.map((a) => a.runId), view.runStatus?.runId];
    return [...new Set(runIds.filter((r): r is string => r !== undefined))].map((runId) => ({
      key,
      runId,
    }));
  }

  /** The last run of each of the user's latest sessions. */
  private async lastRuns(
    userId: string,
    limit: number,
  ): Promise<{ key: SessionKey; runId: string }[]> {
    const { agent, store } = this.deps;
    const page = await agent.runtimeFor(store).listSessions({ userId, limit });
    const out: { key: SessionKey; runId: string }[] = [];
    for (const session of page.sessions) {
      const key = { sessionId: session.sessionId, userId };
      const runId = (await agent.runtimeFor(store).getSession(key)).runStatus?.runId;
      if (runId !== undefined) out.push({ key, runId });
    }
    return out;
  }
}

/** Reads a run's events to their end (its outcome is stored). */
export async function drain(rest: AsyncIterator<unknown>): Promise<void> {
  try {
    for (;;) if ((await rest.next()).done) return;
  } catch {
    // The run's outcome is stored; the task reads it from there.
  }
}
