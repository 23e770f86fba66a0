import type { Agent } from '../agent/agent.js';
import type { RunStreamEvent } from '../agent/run-stream.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { AttachEvent } from '../runs/attach-events.js';
import { httpErrorOf } from './http-error.js';
import { UiChunkTranslator, type RunEnding } from './ui-chunk-translator.js';
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
  const reader = events[Symbol.asyncIterator]();
  const translator = new UiChunkTranslator();
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const next = await reader.next();
          if (next.done) throw new Error('The run stream ended without its end');
          const event = next.value;
          const chunks =
            event.type === 'run_ended'
              ? translator.finish({ result: endingOf(event) })
              : translator.translate(runStreamEventOf(event));
          chunks.forEach((chunk, i) =>
            controller.enqueue(sseFrame(chunk, i === chunks.length - 1 ? event.id : undefined)),
          );
          if (event.type === 'run_ended') break;
          if (chunks.length) return;
        }
      } catch (error) {
        for (const chunk of translator.failed(httpErrorOf(error, 'The run failed'))) {
          controller.enqueue(sseFrame(chunk));
        }
      }
      ended = true;
      controller.enqueue(sseFrame('[DONE]'));
      controller.close();
    },
    async cancel() {
      if (!ended) await reader.return?.();
    },
  });
  return new Response(body, { status: 200, headers: UI_STREAM_HEADERS });
}

/** An attach event as the run stream event the UI chunk translator reads. */
function runStreamEventOf(
  event: Exclude<AttachEvent, { type: 'run_ended' }>,
): RunStreamEvent<unknown> {
  const { runId } = event;
  switch (event.type) {
    case 'step_started':
      return { type: 'state_entered', runId, state: 'modelCall' };
    case 'text':
      return { type: 'text_delta', runId, delta: event.text };
    case 'tool_call':
      return {
        type: 'tool_call_started',
        runId,
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
      };
    case 'tool_result':
      return {
        type: 'tool_call_finished',
        runId,
        callId: event.callId,
        name: '',
        output: event.output,
        isError: event.isError,
      };
    case 'approval_requested':
      return {
        type: 'approval_requested',
        runId,
        interruption: {
          callId: event.callId,
          toolName: event.name,
          arguments: event.arguments,
          agent: '',
        },
      };
  }
}

/** How the message ends for a run that ended or paused. */
function endingOf(event: Extract<AttachEvent, { type: 'run_ended' }>): RunEnding {
  switch (event.status) {
    case 'awaitingApproval':
      return { interrupted: true, interruptionReason: 'approval' };
    case 'interrupted':
      return { interrupted: true, interruptionReason: event.interruption, error: event.error };
    case 'cancelled':
      return {
        interrupted: false,
        error: { code: 'RUN_CANCELLED', message: 'The run was cancelled' },
      };
    case 'crashed':
      return {
        interrupted: false,
        error: { code: 'RUN_CRASHED', message: 'The run stopped with its process' },
      };
    case 'completed':
    case 'failed':
    case 'running':
      return { interrupted: false, error: event.error };
  }
}
