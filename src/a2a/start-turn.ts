import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { RunStream, RunStreamEvent } from '../agent/run-stream.js';
import { AlreadyDecidedError } from '../errors/run-errors.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { RunInProgressError } from '../errors/session-errors.js';
import { answeringRun } from '../machines/answered-messages.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { firstEvent } from '../http/sse-run-stream.js';
import { resolveTask } from './a2a-task-id.js';
import type { A2ATurn } from './a2a-turn.js';
import type { Agent } from '../agent/agent.js';
import type { TraceCarrier } from '../machines/run-types.js';
import { withRemoteParent } from '../telemetry/remote-parent.js';
import { storedTask } from './stored-task.js';

/** A run started or continued for a turn: its session and id, its events if it runs here. */
export interface StartedTurn {
  key: SessionKey;
  runId: string;
  live: AsyncIterator<RunStreamEvent<unknown>> | undefined;
}

/**
 * Starts what the turn asks and names the run that answers it: a new message's run (a
 * message id the session answered already: that run), or the paused run an answer decides.
 */
export async function startTurn(
  deps: { agent: Agent<unknown>; store: SessionStore },
  turn: A2ATurn,
  userId: string,
  trace?: TraceCarrier,
): Promise<StartedTurn> {
  const { agent, store } = deps;
  if (turn.kind === 'message') {
    const key = { sessionId: turn.sessionId, userId };
    try {
      // The run's span: a child of the caller's (its `traceparent`), when it sent one.
      const run = await withRemoteParent(trace, () =>
        agent.stream(turn.text, {
          sessionId: turn.sessionId,
          userId,
          store,
          messageId: turn.messageId,
        }),
      );
      return { key, ...(await opened(run)) };
    } catch (error) {
      const runId = await answeredBy(store, key, turn.messageId, error);
      if (runId === undefined) throw error;
      return { key, runId, live: undefined };
    }
  }
  const { key, runId } = resolveTask(turn.taskId, userId);
  const { status, current } = await storedTask(agent, store, key, runId);
  const inDoubt = status?.status === 'interrupted' ? (status.callsInDoubt ?? []) : [];
  if (!current || !status || (status.status !== 'awaitingApproval' && inDoubt.length === 0)) {
    throw new UnsupportedOperationError(`Task "${turn.taskId}" is not waiting for input`);
  }
  if (inDoubt.length > 0) {
    // Calls in doubt (cut off by a crash, their tools ask): approve runs the call again with
    // its call id, reject gives the model the unknown-outcome error; the run goes on here.
    const answers =
      turn.decisions ??
      inDoubt.map((c) => ({ callId: c.callId, decision: turn.text?.decision ?? 'reject' }));
    for (const { callId, decision } of answers) {
      const action = decision === 'approve' ? ('retry' as const) : ('fail' as const);
      await withRemoteParent(trace, () =>
        agent.resolveInDoubt(key.sessionId, { callId, action }, { userId, store }),
      );
    }
    return { key, runId, live: undefined };
  }
  const decisions = turn.decisions
    ? turn.decisions.map((d) => ({
        callId: d.callId,
        approve: d.decision === 'approve',
        ...(d.message === undefined ? {} : { message: d.message }),
      }))
    : status.interruptions.map((i) => ({
        callId: i.callId,
        approve: turn.text?.decision === 'approve',
        ...(turn.text?.message === undefined ? {} : { message: turn.text.message }),
      }));
  try {
    const { live } = await opened(
      await withRemoteParent(trace, () =>
        agent.streamDecide(key.sessionId, decisions, { userId, store }),
      ),
    );
    return { key, runId, live };
  } catch (error) {
    // The same answer sent again (a retry): the task it decided.
    if (!(error instanceof AlreadyDecidedError)) throw error;
    return { key, runId, live: undefined };
  }
}

/** The run id of a started run stream, and its events from the first on. */
async function opened(
  run: RunStream<unknown>,
): Promise<{ runId: string; live: AsyncIterator<RunStreamEvent<unknown>> }> {
  const { first, rest } = await firstEvent(run);
  let sent = false;
  const live: AsyncIterator<RunStreamEvent<unknown>> = {
    next: () => {
      if (sent) return rest.next();
      sent = true;
      return Promise.resolve({ done: false, value: first });
    },
  };
  return { runId: runIdOf(first), live };
}

/** The run answering `messageId` when `error` says the session answered it (or is answering it). */
async function answeredBy(
  store: SessionStore,
  key: SessionKey,
  messageId: string,
  error: unknown,
): Promise<string | undefined> {
  if (error instanceof MessageAnsweredError) return error.runId;
  if (error instanceof RunInProgressError) {
    return answeringRun((await store.load(key)).snapshot, messageId);
  }
  return undefined;
}

function runIdOf(event: RunStreamEvent<unknown>): string {
  return event.type === 'run_finished' ? event.result.id : event.runId;
}
