import type { AguiEventTranslator } from './agui-event-translator.js';
import { sseRunResponse, type OpenedRun } from './sse-run-stream.js';

/** The headers of an AG-UI event stream response (Server-Sent Events). */
export const AGUI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * The response streaming a run as AG-UI events, one `data: {json}` frame each, from
 * `RUN_STARTED` to `RUN_FINISHED` or `RUN_ERROR` (a failure after the start: the typed
 * error's code and message, never an unexpected error's own).
 */
export function aguiEventStreamResponse(
  opened: OpenedRun<unknown>,
  translator: AguiEventTranslator,
): Response {
  return sseRunResponse(opened, translator, AGUI_STREAM_HEADERS);
}
