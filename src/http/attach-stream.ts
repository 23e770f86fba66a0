import type { Agent } from '../agent/agent.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { AttachEvent } from '../runs/attach-events.js';
import { httpErrorOf, type HttpError } from './http-error.js';
import { endingOf, runStreamEventOf } from './attach-run-events.js';
import { UiChunkTranslator } from './ui-chunk-translator.js';
import { sseFrame } from './sse-run-stream.js';
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
  const { sessionId, userId } = key;
  const events = agent.attach(sessionId, { userId, store, ...(after ? { after } : {}) });
  const view = await agent.runtimeFor(store).getSession(key);
  if (view.runStatus?.status !== 'running') return new Response(null, { status: 204 });
  const translator = new UiChunkTranslator();
  const body = attachedEventBody(events, {
    translate: (event) =>
      event.type === 'run_ended'
        ? translator.finish({ result: endingOf(event) })
        : translator.translate(runStreamEventOf(event)),
    failed: (error) => translator.failed(error),
    ids: true,
    done: '[DONE]',
  });
  return new Response(body, { status: 200, headers: UI_STREAM_HEADERS });
}

/** How an attached run's events become the frames of one wire protocol. */
export interface AttachedFrames<F> {
  /** The frames that open the stream, before the first event's. */
  opening?: F[];
  /** The frames of one event; `run_ended`'s are the last ones. */
  translate(event: AttachEvent): F[] | Promise<F[]>;
  /** The frames that end the stream after it failed (the typed error's code and message). */
  failed(error: HttpError): F[];
  /** Whether each event's last frame carries the event's id (an SSE `id:` line). */
  ids: boolean;
  /** A last frame after the run's end (e.g. `[DONE]`). */
  done?: string;
}

/**
 * The body of a Server-Sent Events response following an attached run (`agent.attach`): the
 * frames of each event until `run_ended`; a failure ends it with the `failed` frames. A client
 * that goes away stops the attach, never the run.
 */
export function attachedEventBody<F extends object>(
  events: AsyncIterable<AttachEvent>,
  frames: AttachedFrames<F>,
): ReadableStream<Uint8Array> {
  const reader = events[Symbol.asyncIterator]();
  let pending = frames.opening ?? [];
  let ended = false;
  return new ReadableStream<Uint8Array>({
    // Each pull enqueues at least one frame (a pull that enqueues nothing is not called again).
    async pull(controller) {
      try {
        if (pending.length) {
          for (const frame of pending) controller.enqueue(sseFrame(frame));
          pending = [];
          return;
        }
        for (;;) {
          const next = await reader.next();
          if (next.done) throw new Error('The run stream ended without its end');
          const event = next.value;
          const out = await frames.translate(event);
          out.forEach((frame, i) => {
            const id = frames.ids && i === out.length - 1 ? event.id : undefined;
            controller.enqueue(sseFrame(frame, id));
          });
          if (event.type === 'run_ended') break;
          if (out.length) return;
        }
      } catch (error) {
        for (const frame of frames.failed(httpErrorOf(error, 'The run failed'))) {
          controller.enqueue(sseFrame(frame));
        }
      }
      ended = true;
      if (frames.done !== undefined) controller.enqueue(sseFrame(frames.done));
      controller.close();
    },
    async cancel() {
      if (!ended) await reader.return?.();
    },
  });
}
