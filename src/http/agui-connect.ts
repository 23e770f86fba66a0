import type { Agent } from '../agent/agent.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { RunStatus } from '../runs/run-status.js';
import type { RunNode } from '../runs/run-tree.js';
import { storedRun } from '../runs/stored-run.js';
import { waitingInterruptions } from '../runs/waiting-interruptions.js';
import { cacheKey } from '../session-host/session-cache.js';
import { AGUI_STREAM_HEADERS } from './agui-event-stream.js';
import { AguiEventTranslator, type AguiRunEnding } from './agui-event-translator.js';
import { aguiMessagesOf } from './agui-messages.js';
import { endingOf, runStreamEventOf } from './attach-run-events.js';
import { sseEventBody, sseFrame } from './sse-run-stream.js';

/** The statuses of a run that stands still and waits for the app: its end says why. */
const PAUSED: ReadonlySet<RunStatus> = new Set(['awaitingApproval', 'interrupted', 'crashed']);

/**
 * `POST {basePath}/agui/connect`, AG-UI's `connect` (an agent's `connectAgent()`, e.g. after a
 * reload): the thread's state as AG-UI events. `RUN_STARTED`, then a `MESSAGES_SNAPSHOT` (the
 * client's messages are replaced, so a client that had part of the run adds nothing twice);
 * with a run in progress the snapshot ends at the run's input, and the run follows from its
 * start through `agent.attach` (its journaled steps, then live) to its `RUN_FINISHED` or
 * `RUN_ERROR`, as its own stream ends; the model is not called again. No run in progress: the
 * whole history, then the last run's end: `RUN_FINISHED` (an interrupt outcome for calls
 * waiting for approval), `RUN_ERROR` for a run paused otherwise or crashed. Message ids of the
 * run start with its run id. Another user's thread is 404, as a missing one.
 */
export async function aguiConnectResponse(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  clientRunId: string,
): Promise<Response> {
  const { sessionId, userId } = key;
  const runtime = agent.runtimeFor(store);
  const view = await runtime.getSession(key);
  const status = view.runStatus;
  const runId = status?.runId ?? clientRunId;
  const translator = new AguiEventTranslator(sessionId, runId);
  const run = view.run?.context;
  // In progress: steps execute, or this process executes the run (also between two steps).
  const live = agent.liveRunsFor(store).has(cacheKey(key));
  if ((status?.status === 'running' || live) && run) {
    const before = await store.readHistory(
      key,
      view.historyFrom,
      run.historyStart + run.inputCount,
    );
    const events = agent.attach(sessionId, { userId, store });
    const body = sseEventBody(events[Symbol.asyncIterator](), {
      opening: translator.start(runId, aguiMessagesOf(before, view.historyFrom)),
      translate: async (event) => {
        if (event.type !== 'run_ended') return translator.translate(runStreamEventOf(event));
        const paused = event.status === 'awaitingApproval';
        const interruptions = paused ? await waitingCalls(store, key) : [];
        return translator.end({ ...endingOf(event), id: event.runId, interruptions });
      },
      isLast: (event) => event.type === 'run_ended',
      failed: (error) => translator.failed(error),
    });
    return new Response(body, { status: 200, headers: AGUI_STREAM_HEADERS });
  }
  const items = await store.readHistory(key, view.historyFrom, view.historyLength);
  const ending: AguiRunEnding =
    status && PAUSED.has(status.status)
      ? { ...endingOf(status), id: runId, interruptions: await waitingCalls(store, key) }
      : { id: runId, interrupted: false, interruptions: [] };
  const frames = [
    ...translator.start(runId, aguiMessagesOf(items, view.historyFrom)),
    ...translator.end(ending),
  ];
  const body = new Blob(frames.map((frame) => sseFrame(frame)));
  return new Response(body.stream(), { status: 200, headers: AGUI_STREAM_HEADERS });
}

/** The calls the session's stored run tree waits on for approval (sub-agent runs' included). */
async function waitingCalls(store: SessionStore, key: SessionKey) {
  const root = storedRun<RunNode>((await store.load(key)).snapshot);
  return root?.status === 'active' ? waitingInterruptions(root) : [];
}
