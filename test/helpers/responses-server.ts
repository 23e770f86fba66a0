import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from './chat-completions-server.js';

/**
 * A fake Responses API server on 127.0.0.1 answering `POST /responses` from a queue of
 * scripted replies (JSON bodies, SSE event streams, errors), recording every request. The
 * same server as the Chat Completions one, on another route; SSE events carry their `event:`
 * name and no `[DONE]` when replied with `done: false`.
 */
export function startResponsesServer(): Promise<ChatCompletionsServer> {
  return startChatCompletionsServer('/responses');
}

// ---- Builders for protocol bodies -------------------------------------------------------

export interface ResponsesUsageSpec {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

type OutputItem = Record<string, unknown> & { type: string };

/** A `reasoning` output item, with its encrypted content and summary texts. */
export function reasoningOut(id: string, encrypted: string, summary: string[] = []): OutputItem {
  return {
    type: 'reasoning',
    id,
    encrypted_content: encrypted,
    summary: summary.map((text) => ({ type: 'summary_text', text })),
  };
}

/** An assistant `message` output item with one text part (or a refusal part). */
export function messageOut(text: string, kind: 'text' | 'refusal' = 'text'): OutputItem {
  const part =
    kind === 'text'
      ? { type: 'output_text', text, annotations: [] }
      : { type: 'refusal', refusal: text };
  return {
    type: 'message',
    id: `msg_${text.length}`,
    role: 'assistant',
    status: 'completed',
    content: [part],
  };
}

/** A `function_call` output item. */
export function functionCallOut(callId: string, name: string, args: string): OutputItem {
  return {
    type: 'function_call',
    id: `fc_${callId}`,
    call_id: callId,
    name,
    arguments: args,
    status: 'completed',
  };
}

/** A complete `response` object. */
export function responseBody(spec: {
  output: OutputItem[];
  usage?: ResponsesUsageSpec;
  status?: 'completed' | 'incomplete' | 'failed';
  incompleteReason?: string;
  error?: { code: string; message: string };
  model?: string;
}) {
  const usage = spec.usage ?? { input: 10, output: 5 };
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1_700_000_000,
    status: spec.status ?? 'completed',
    model: spec.model ?? 'test-model-2024',
    output: spec.output,
    error: spec.error ?? null,
    incomplete_details: spec.incompleteReason ? { reason: spec.incompleteReason } : null,
    usage: {
      input_tokens: usage.input,
      input_tokens_details: { cached_tokens: usage.cached ?? 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
      total_tokens: usage.input + usage.output,
    },
  };
}

/** `text` cut into pieces of at most `size` characters. */
function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let i = 0; i < text.length; i += size) result.push(text.slice(i, i + size));
  return result;
}

/**
 * The SSE events a server streams for `response`: created, then per output item `added`, its
 * deltas (text and function arguments cut into pieces of `size` characters) and `done`, then
 * `response.completed` (or `.incomplete` / `.failed`) carrying the whole response.
 */
export function responseEvents(response: ReturnType<typeof responseBody>, size = 4): unknown[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({
    type,
    sequence_number: sequence++,
    ...fields,
  });
  const events: unknown[] = [
    event('response.created', { response: { ...response, status: 'in_progress', output: [] } }),
  ];
  response.output.forEach((item, output_index) => {
    if (item.type === 'function_call') {
      events.push(
        event('response.output_item.added', { output_index, item: { ...item, arguments: '' } }),
      );
      for (const delta of pieces(item['arguments'] as string, size)) {
        events.push(
          event('response.function_call_arguments.delta', {
            output_index,
            item_id: item['id'],
            delta,
          }),
        );
      }
    } else if (item.type === 'message') {
      events.push(
        event('response.output_item.added', { output_index, item: { ...item, content: [] } }),
      );
      const part = (item['content'] as { type: string; text?: string }[])[0]!;
      if (part.type === 'output_text') {
        for (const delta of pieces(part.text ?? '', size)) {
          events.push(
            event('response.output_text.delta', {
              output_index,
              item_id: item['id'],
              content_index: 0,
              delta,
              logprobs: [],
            }),
          );
        }
      }
    } else {
      events.push(event('response.output_item.added', { output_index, item }));
    }
    events.push(event('response.output_item.done', { output_index, item }));
  });
  const last =
    response.status === 'failed'
      ? 'response.failed'
      : response.status === 'incomplete'
        ? 'response.incomplete'
        : 'response.completed';
  events.push(event(last, { response }));
  return events;
}
