import { sseRunResponse, type OpenedRun } from './sse-run-stream.js';
import type { UiChunkTranslator } from './ui-chunk-translator.js';

/** The headers of a UI message stream response (Server-Sent Events). */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/**
 * The response streaming a run as UI message chunks (`data: {json}` lines, then
 * `data: [DONE]`). An error after the start is an `error` chunk: its message is the typed
 * error's, never an unexpected error's own.
 */
export function uiMessageStreamResponse(
  opened: OpenedRun<unknown>,
  translator: UiChunkTranslator,
): Response {
  return sseRunResponse(opened, translator, UI_STREAM_HEADERS, '[DONE]');
}
