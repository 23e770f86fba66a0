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
  let pending: RunStreamEvent<unknown> | undefined = opened.first;
  const body = new ReadableStream<Uint8Array>({
    // Each pull enqueues at least one frame (a pull that enqueues nothing is not called again).
    async pull(controller) {
      try {
        for (;;) {
          const next = pending ? undefined : await opened.rest.next();
          const event = pending ?? (next?.done ? undefined : next?.value);
          pending = undefined;
          if (event === undefined) throw new Error('The run stream ended without its result');
          const frames = translator.translate(event);
          for (const frame of frames) controller.enqueue(sseFrame(frame));
          if (event.type === 'run_finished') break;
          if (frames.length) return;
        }
      } catch (error) {
        for (const frame of translator.failed(httpErrorOf(error, 'The run failed'))) {
          controller.enqueue(sseFrame(frame));
        }
      }
      if (done !== undefined) controller.enqueue(sseFrame(done));
      controller.close();
    },
    async cancel() {
      await opened.rest.return?.();
    },
  });
  return new Response(body, { status: 200, headers });
}
