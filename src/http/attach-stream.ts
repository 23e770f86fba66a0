import type { Agent } from '../agent/agent.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { endingOf, runStreamEventOf } from './attach-run-events.js';
import { UiChunkTranslator } from './ui-chunk-translator.js';
import { sseEventBody } from './sse-run-stream.js';
import { UI_STREAM_HEADERS } from './ui-message-stream.js';

/**
 * `GET {basePath}/chat/:id/stream`, what the AI SDK's `useChat({ resume: true })` asks after a
 * reload (`DefaultChatTransport.reconnectToStream`): the session's run in progress as one UI
 * message from its start (the client replaces the message it had), its journaled steps then
 * what follows live, each event's chunks after an SSE `id:` line (the `agent.attach` event id;
 * `Last-Event-ID` or `?after=` go on after one). No run in progress: 204, the client's answer
 * is complete. Another user's session is 404, as a missing one.
 */
export async function attachStreamResponse(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  after: string | undefined,
): Promise<Response> {
  return attachedRunResponse(agent, store, key, after, 'running');
}

/**
 * The session's current (else last) run as one UI message (see `attachStreamResponse`), from
 * its start or after `after`: `only: 'running'` answers 204 when no run is in progress;
 * otherwise a run that ended is read whole from the store, up to how it ended.
 */
export async function attachedRunResponse(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  after: string | undefined,
  only?: 'running',
): Promise<Response> {
  const { sessionId, userId } = key;
  const events = agent.attach(sessionId, { userId, store, ...(after ? { after } : {}) });
  const view = await agent.runtimeFor(store).getSession(key);
  if (only === 'running' && view.runStatus?.status !== 'running') {
    return new Response(null, { status: 204 });
  }
  const translator = new UiChunkTranslator();
  const body = sseEventBody(events[Symbol.asyncIterator](), {
    translate: (event) =>
      event.type === 'run_ended'
        ? translator.finish({ result: endingOf(event) })
        : translator.translate(runStreamEventOf(event)),
    isLast: (event) => event.type === 'run_ended',
    failed: (error) => translator.failed(error),
    idOf: (event) => event.id,
    done: '[DONE]',
  });
  return new Response(body, { status: 200, headers: UI_STREAM_HEADERS });
}
