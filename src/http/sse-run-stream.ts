import type { RunStream, RunStreamEvent } from '../agent/run-stream.js';
import { httpErrorOf, type HttpError } from './http-error.js';

/** Turns a run's stream events into the frames of one wire protocol. */
export interface RunEventTranslator<F> {
  /** The frames of one event; `run_finished`'s are the last ones. */
  translate(event: RunStreamEvent<unknown>): F[];
  /** The frames that end the stream after it failed (the typed error's code and message). */
  failed(error: HttpError): F[];
}

/** A run stream whose first event was read (`firstEvent`). */
export interface OpenedRun<T> {
  first: RunStreamEvent<T>;
  rest: AsyncIterator<RunStreamEvent<T>>;
}

/** One Server-Sent Event: `data: {json}` (or the text as it is), after an `id:` line if given. */
export function sseFrame(data: object | string, id?: string): Uint8Array {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return new TextEncoder().encode(`${id === undefined ? '' : `id: ${id}\n`}data: ${text}\n\n`);
}

/**
 * Reads the first event of a run stream, so that a refused start (a paused run, another
 * user's call, a bad decision) throws here, before any response is sent. The stream is
 * detached: a client that goes away stops reading, and the run goes on and is stored.
 */
export async function firstEvent<T>(stream: RunStream<T>): Promise<OpenedRun<T>> {
  stream.detach();
  const rest = stream[Symbol.asyncIterator]();
  const next = await rest.next();
  if (next.done) throw new Error('The run stream ended before its first event');
  return { first: next.value, rest };
}

/**
 * The response streaming a run as Server-Sent Events, one `data:` frame per translated frame,
 * until `run_finished`, then `done` if given (e.g. `[DONE]`). A failure after the start ends the
 * stream with the translator's `failed` frames: the typed error's code and message, never an
 * unexpected error's own.
 */
export function sseRunResponse<F extends object>(
  opened: OpenedRun<unknown>,
  translator: RunEventTranslator<F>,
  headers: Readonly<Record<string, string>>,
  done?: string,
): Response {
  const body = sseEventBody(withFirst(opened.first, opened.rest), {
    translate: (event) => translator.translate(event),
    isLast: (event) => event.type === 'run_finished',
    failed: (error) => translator.failed(error),
    ...(done === undefined ? {} : { done }),
  });
  return new Response(body, { status: 200, headers });
}

/** How a stream's events become the frames of one wire protocol (`sseEventBody`). */
export interface SseFrames<E, F> {
  /** The frames that open the stream, before the first event's. */
  opening?: F[];
  /** The frames of one event. */
  translate(event: E): F[] | Promise<F[]>;
  /** Whether the event is the run's end, the stream's last. */
  isLast(event: E): boolean;
  /** The frames that end the stream after it failed (the typed error's code and message). */
  failed(error: HttpError): F[];
  /** The id of an event, sent (an SSE `id:` line) with its last frame. */
  idOf?(event: E): string;
  /** A frame after the run's end (e.g. `[DONE]`). */
  done?: string;
}

/**
 * The body of a Server-Sent Events response: the opening frames, then the frames of each event
 * until the last one, then `done`; a failure (also events ending before the last) ends it with
 * the `failed` frames. A client that goes away stops reading the events.
 */
export function sseEventBody<E, F extends object>(
  events: AsyncIterator<E>,
  frames: SseFrames<E, F>,
): ReadableStream<Uint8Array> {
  let opening = frames.opening ?? [];
  let ended = false;
  return new ReadableStream<Uint8Array>({
    // Each pull enqueues at least one frame (a pull that enqueues nothing is not called again).
    async pull(controller) {
      try {
        if (opening.length) {
          for (const frame of opening) controller.enqueue(sseFrame(frame));
          opening = [];
          return;
        }
        for (;;) {
          const next = await events.next();
          if (next.done) throw new Error('The run stream ended before the run did');
          const event = next.value;
          const out = await frames.translate(event);
          out.forEach((frame, i) => {
            const id = i === out.length - 1 ? frames.idOf?.(event) : undefined;
            controller.enqueue(sseFrame(frame, id));
          });
          if (frames.isLast(event)) break;
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
      if (!ended) await events.return?.();
    },
  });
}

/** `rest` after `first`; its end ends `rest`. */
function withFirst<T>(first: T, rest: AsyncIterator<T>): AsyncIterator<T> {
  let read = false;
  return {
    next: async () => {
      if (read) return rest.next();
      read = true;
      return { done: false, value: first };
    },
    return: async () => (await rest.return?.()) ?? { done: true, value: undefined },
  };
}
