import type { RunStream, RunStreamEvent } from '../agent/run-stream.js';
import { httpErrorOf } from './http-error.js';
import type { UiMessageChunk } from './ui-message-chunk.js';
import type { UiChunkTranslator } from './ui-chunk-translator.js';

/** The headers of a UI message stream response (Server-Sent Events). */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** One Server-Sent Event of a UI message stream: `data: {json}`, after an `id:` line if given. */
export function sseFrame(chunk: UiMessageChunk | '[DONE]', id?: string): Uint8Array {
  const data = typeof chunk === 'string' ? chunk : JSON.stringify(chunk);
  return new TextEncoder().encode(`${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`);
}

/**
 * Reads the first event of a run stream, so that a refused start (a paused run, another
 * user's call, a bad decision) throws here, before any response is sent. The stream is
 * detached: a client that goes away stops reading, and the run goes on and is stored.
 */
export async function firstEvent<T>(
  stream: RunStream<T>,
): Promise<{ first: RunStreamEvent<T>; rest: AsyncIterator<RunStreamEvent<T>> }> {
  stream.detach();
  const rest = stream[Symbol.asyncIterator]();
  const next = await rest.next();
  if (next.done) throw new Error('The run stream ended before its first event');
  return { first: next.value, rest };
}

/**
 * The response streaming a run as UI message chunks (`data: {json}` lines, then
 * `data: [DONE]`). An error after the start is an `error` chunk: its message is the typed
 * error's, never an unexpected error's own.
 */
export function uiMessageStreamResponse<T>(
  opened: { first: RunStreamEvent<T>; rest: AsyncIterator<RunStreamEvent<T>> },
  translator: UiChunkTranslator,
): Response {
  const frame = (chunk: UiMessageChunk | '[DONE]') => sseFrame(chunk);
  let pending: RunStreamEvent<T> | undefined = opened.first;
  const body = new ReadableStream<Uint8Array>({
    // Each pull enqueues at least one chunk (a pull that enqueues nothing is not called again).
    async pull(controller) {
      try {
        for (;;) {
          const next: IteratorResult<RunStreamEvent<T>> | undefined = pending
            ? undefined
            : await opened.rest.next();
          const event = pending ?? (next?.done ? undefined : next?.value);
          pending = undefined;
          if (event === undefined) throw new Error('The run stream ended without its result');
          const chunks = translator.translate(event);
          if (event.type === 'run_finished')
            chunks.push(...translator.finish({ result: event.result }));
          for (const chunk of chunks) controller.enqueue(frame(chunk));
          if (event.type === 'run_finished') break;
          if (chunks.length) return;
        }
      } catch (error) {
        const { code, message } = httpErrorOf(error, 'The run failed');
        for (const chunk of translator.finish({ error: `${code}: ${message}` })) {
          controller.enqueue(frame(chunk));
        }
      }
      controller.enqueue(frame('[DONE]'));
      controller.close();
    },
    async cancel() {
      await opened.rest.return?.();
    },
  });
  return new Response(body, { status: 200, headers: UI_STREAM_HEADERS });
}
