import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import type { ModelResponse, ModelStreamEvent } from '../../src/models/model.js';

/** One request the server received. `body` is the parsed JSON body. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * A scripted reply: JSON, an SSE stream of chunks, an HTTP error, or a custom handler. The
 * first three may be held back by the server for `delayMs` (to make a client time out).
 */
export type Reply =
  | { json: unknown; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { sse: unknown[]; headers?: Record<string, string>; delayMs?: number; done?: boolean }
  | { status: number; error: string; headers?: Record<string, string>; delayMs?: number }
  | ((request: RecordedRequest, res: ServerResponse) => void | Promise<void>);

export interface ChatCompletionsServer {
  /** Pass as `baseURL` to the OpenAI client. */
  baseURL: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Queues replies, used one per request in order. */
  enqueue(...replies: Reply[]): void;
  close(): Promise<void>;
  /** Body of the n-th request (default: the last one); throws when there is none. */
  body(n?: number): Record<string, unknown>;
}

function send(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function answer(reply: Reply, request: RecordedRequest, res: ServerResponse): Promise<void> {
  if (typeof reply === 'function') return reply(request, res);
  if ('sse' in reply) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...reply.headers,
    });
    for (const chunk of reply.sse) {
      // Responses API events are named after their `type`; Chat Completions chunks have none.
      const type = (chunk as { type?: unknown }).type;
      const name = typeof type === 'string' ? `event: ${type}\n` : '';
      res.write(`${name}data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end(reply.done === false ? '' : 'data: [DONE]\n\n');
    return;
  }
  if ('json' in reply) return send(res, reply.status ?? 200, reply.json, reply.headers);
  const error = { message: reply.error, type: 'server_error', param: null, code: null };
  send(res, reply.status, { error }, reply.headers);
}

/**
 * Starts a fake Chat Completions server on 127.0.0.1 (random port) answering
 * `POST /chat/completions` (or `POST <route>`) from a queue of scripted replies. With an empty
 * queue it answers 400 (not retried by the SDK) so a missing script fails fast.
 */
export async function startChatCompletionsServer(
  route = '/chat/completions',
): Promise<ChatCompletionsServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const delayed = new Set<NodeJS.Timeout>();
  const later = (delayMs: number, reply: () => void): void => {
    const timer = setTimeout(() => {
      delayed.delete(timer);
      reply();
    }, delayMs);
    delayed.add(timer);
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const request: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      requests.push(request);
      if (request.method !== 'POST' || !request.url.endsWith(route)) {
        return send(res, 404, { error: { message: `No route ${request.url}` } });
      }
      const reply = queue.shift();
      if (!reply) {
        return send(
          res,
          400,
          { error: { message: 'No scripted reply left' } },
          {
            'x-should-retry': 'false',
          },
        );
      }
      const respond = (): void => {
        if (res.destroyed) return; // the client gave up while the reply was held back
        answer(reply, request, res).catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : new Error(String(error)));
        });
      };
      const delayMs = typeof reply === 'function' ? undefined : reply.delayMs;
      if (delayMs === undefined) respond();
      else later(delayMs, respond);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    body: (n = requests.length - 1) => {
      const request = requests[n];
      if (!request) throw new Error(`No request #${n} was received`);
      return request.body;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of delayed) clearTimeout(timer);
        delayed.clear();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A server per test of the calling file: started before each test, closed after it. The
 * returned object always speaks to the current test's server.
 */
export function chatCompletionsServerPerTest(): ChatCompletionsServer {
  let current: ChatCompletionsServer | undefined;
  beforeEach(async () => {
    current = await startChatCompletionsServer();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const live = (): ChatCompletionsServer => {
    if (!current) throw new Error('The chat completions server only runs during a test');
    return current;
  };
  return {
    get baseURL() {
      return live().baseURL;
    },
    get requests() {
      return live().requests;
    },
    enqueue: (...replies) => live().enqueue(...replies),
    body: (n) => live().body(n),
    close: () => live().close(),
  };
}

// ---- Builders for protocol bodies -------------------------------------------------------

export interface UsageSpec {
  prompt: number;
  completion: number;
  cached?: number;
}

function usageBody(usage: UsageSpec) {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
  };
}

/** A non-streamed `chat.completion` body. */
export function completion(spec: {
  content?: string | null;
  refusal?: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  finishReason?: string;
  usage?: UsageSpec;
  model?: string;
}) {
  const toolCalls = spec.toolCalls?.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: spec.model ?? 'test-model-2024',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: spec.content ?? null,
          refusal: spec.refusal ?? null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: spec.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: usageBody(spec.usage ?? { prompt: 10, completion: 5 }),
  };
}

/** One `chat.completion.chunk` with a delta for the first choice (or no choice). */
export function chunk(
  delta: Record<string, unknown> | null,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'test-model-2024',
    choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
}

/** The final chunk carrying only usage (what `stream_options.include_usage` adds). */
export function usageChunk(usage: UsageSpec) {
  return chunk(null, null, { usage: usageBody(usage) });
}

/** A delta for part of tool call number `index`. */
export function toolDelta(index: number, args: string, first?: { id: string; name: string }) {
  return {
    tool_calls: [
      {
        index,
        ...(first ? { id: first.id, type: 'function' } : {}),
        function: { ...(first ? { name: first.name } : {}), arguments: args },
      },
    ],
  };
}

// ---- Stream helpers ----------------------------------------------------------------------

/** Reads a model stream to its end. */
export async function collect(
  events: AsyncIterable<ModelStreamEvent>,
): Promise<ModelStreamEvent[]> {
  const result: ModelStreamEvent[] = [];
  for await (const event of events) result.push(event);
  return result;
}

/** The `response` a stream ended with; throws when it ended otherwise. */
export function final(events: ModelStreamEvent[]): ModelResponse {
  const last = events.at(-1);
  if (last?.type !== 'response') throw new Error('The stream did not end with a response');
  return last.response;
}
