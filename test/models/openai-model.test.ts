import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelBehaviorError, ModelError } from '../../src/errors/run-errors.js';
import type { ModelRequest, ModelStreamEvent } from '../../src/models/model.js';
import { OpenAIModel, type OpenAIModelOptions } from '../../src/models/openai-model.js';
import { StreamAccumulator } from '../../src/models/stream-accumulator.js';
import {
  chunk,
  collect,
  completion,
  final,
  startChatCompletionsServer,
  toolDelta,
  usageChunk,
  type ChatCompletionsServer,
} from '../helpers/chat-completions-server.js';

let server: ChatCompletionsServer;
beforeEach(async () => {
  server = await startChatCompletionsServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const model = (options: Partial<OpenAIModelOptions> = {}) =>
  new OpenAIModel({ model: 'test-model', apiKey: 'test-key', baseURL: server.baseURL, ...options });
const ask = (content = 'hi', extra: Partial<ModelRequest> = {}): ModelRequest => ({
  items: [{ type: 'message', role: 'user', content }],
  tools: [],
  ...extra,
});
/** The error `promise` rejects with (typed as ModelError for convenient assertions). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as ModelError,
  );

describe('OpenAIModel.generate', () => {
  it('returns a plain text answer with usage and sends the API key', async () => {
    server.enqueue({
      json: completion({ content: 'Hello!', usage: { prompt: 12, completion: 3, cached: 4 } }),
    });
    const response = await model().generate(ask());
    expect(response).toEqual({
      text: 'Hello!',
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 3, cachedTokens: 4 },
      finishReason: 'stop',
      refusal: undefined,
      model: 'test-model-2024',
      id: 'chatcmpl-test',
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.url).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    // No system message, tools, response_format or temperature when there are none.
    expect(server.body()).toEqual({
      model: 'test-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
  });

  it('returns tool calls, passing malformed argument JSON through raw', async () => {
    const calls = [
      { id: 'call_1', name: 'lookup', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'broken', arguments: '{"city": "Par' },
    ];
    server.enqueue({ json: completion({ toolCalls: calls }) });
    const response = await model().generate(ask());
    expect(response.finishReason).toBe('tool_calls');
    expect(response.text).toBeUndefined();
    expect(response.toolCalls).toEqual([
      { type: 'tool_call', callId: 'call_1', name: 'lookup', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', callId: 'call_2', name: 'broken', arguments: '{"city": "Par' },
    ]);
  });

  it('maps refusal and the finish reasons length, content_filter and unknown ones', async () => {
    const no = 'I cannot help with that.';
    server.enqueue(
      { json: completion({ refusal: no }) },
      { json: completion({ content: 'Once upon', finishReason: 'length' }) },
      { json: completion({ content: '', finishReason: 'content_filter' }) },
      { json: completion({ content: 'x', finishReason: 'function_call' }) },
    );
    const m = model();
    const r = { text: no, refusal: no, finishReason: 'refusal' };
    expect(await m.generate(ask())).toMatchObject(r);
    expect(await m.generate(ask())).toMatchObject({ text: 'Once upon', finishReason: 'length' });
    const filtered = { text: undefined, finishReason: 'content_filter' };
    expect(await m.generate(ask())).toMatchObject(filtered);
    expect((await m.generate(ask())).finishReason).toBe('other');
  });

  it('maps instructions, messages, tool calls, tool results, tools and output schema', async () => {
    server.enqueue({ json: completion({ content: '{"ok":true}' }) });
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    await model({ temperature: 0.2 }).generate({
      instructions: 'Be brief.',
      model: 'override-model',
      outputSchema: schema,
      tools: [{ name: 'weather', description: 'Gets weather', parameters }],
      items: [
        { type: 'message', role: 'user', content: 'Weather in Paris and Rome?' },
        { type: 'message', role: 'assistant', content: 'Checking.' },
        { type: 'tool_call', callId: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', callId: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
        { type: 'tool_result', callId: 'c1', name: 'weather', output: 'sunny' },
        { type: 'tool_result', callId: 'c2', name: 'weather', output: 'boom', isError: true },
        { type: 'tool_call', callId: 'c3', name: 'weather', arguments: '{}' },
        { type: 'tool_result', callId: 'c3', name: 'weather', output: 'rain' },
      ],
    });
    const body = server.body();
    const weather = { name: 'weather' };
    const fn = (id: string, args: string) => ({
      id,
      type: 'function',
      function: { ...weather, arguments: args },
    });
    expect(body.model).toBe('override-model');
    expect(body.temperature).toBe(0.2);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [fn('c1', '{"city":"Paris"}'), fn('c2', '{"city":"Rome"}')],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'c2', content: 'boom' },
      { role: 'assistant', content: null, tool_calls: [fn('c3', '{}')] },
      { role: 'tool', tool_call_id: 'c3', content: 'rain' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Gets weather', parameters } },
    ]);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: false },
    });
  });
});

describe('OpenAIModel errors', () => {
  it('retries a 429 (honouring retry-after-ms) and then succeeds', async () => {
    server.enqueue(
      { status: 429, error: 'Rate limit reached', headers: { 'retry-after-ms': '1' } },
      { json: completion({ content: 'after retry' }) },
    );
    const response = await model().generate(ask());
    expect(response.text).toBe('after retry');
    expect(server.requests).toHaveLength(2);
  });

  it('wraps a 500 into ModelError with status and cause when retries are off', async () => {
    server.enqueue({ status: 500, error: 'Internal failure' });
    const error = await failure(model({ maxRetries: 0 }).generate(ask()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 500, code: 'MODEL_ERROR' });
    expect(error.cause).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toContain('Internal failure');
    expect(server.requests).toHaveLength(1);
  });

  it('wraps HTTP errors of a stream request too', async () => {
    server.enqueue({ status: 401, error: 'Bad key' });
    const error = await failure(collect(model().stream(ask())));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.status).toBe(401);
  });

  it('wraps connection errors into ModelError without status', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const m = model({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const error = await failure(m.generate(ask()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('wraps a timeout into ModelError', async () => {
    server.enqueue(() => undefined); // never answers
    const error = await failure(model({ timeoutMs: 50, maxRetries: 0 }).generate(ask()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.cause).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('rethrows cancellation through the signal unchanged', async () => {
    const controller = new AbortController();
    server.enqueue(() => controller.abort()); // aborts once the request arrived; never answers
    const error = await failure(model().generate(ask(), { signal: controller.signal }));
    expect(error).not.toBeInstanceOf(ModelError);
    expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('throws ModelError when no API key is available and no baseURL is given', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(() => new OpenAIModel({ model: 'gpt-4o' })).toThrow(ModelError);
  });
});

describe('OpenAIModel.stream', () => {
  it('streams text and a tool call whose arguments are split across chunks, then usage', async () => {
    server.enqueue({
      sse: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Let me ' }),
        chunk({ content: 'check.' }),
        chunk(toolDelta(0, '', { id: 'call_a', name: 'weather' })),
        chunk(toolDelta(0, '{"ci')),
        chunk(toolDelta(0, 'ty":"Pa')),
        chunk(toolDelta(0, 'ris"}')),
        chunk({}, 'tool_calls'),
        usageChunk({ prompt: 100, completion: 20, cached: 64 }),
      ],
    });
    const events = await collect(model().stream(ask()));
    const body = server.body();
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    const texts = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(texts).toEqual(['Let me ', 'check.']);
    const toolEvents = events.filter((e) => e.type === 'tool_call_delta');
    expect(toolEvents).toHaveLength(4);
    expect(toolEvents[0]).toMatchObject({ index: 0, callId: 'call_a', name: 'weather' });
    expect(toolEvents.map((e) => e.argumentsDelta).join('')).toBe('{"city":"Paris"}');
    expect(final(events)).toEqual({
      text: 'Let me check.',
      toolCalls: [
        { type: 'tool_call', callId: 'call_a', name: 'weather', arguments: '{"city":"Paris"}' },
      ],
      usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 64 },
      finishReason: 'tool_calls',
      refusal: undefined,
      model: 'test-model-2024',
      id: 'chatcmpl-test',
    });
  });

  it('accumulates two parallel, interleaved tool calls by index (raw malformed JSON kept)', async () => {
    server.enqueue({
      sse: [
        chunk(toolDelta(0, '{"q":', { id: 'call_0', name: 'search' })),
        chunk(toolDelta(1, '{"n":', { id: 'call_1', name: 'count' })),
        chunk(toolDelta(0, '"cats"}')),
        chunk(toolDelta(1, '3,,')),
        chunk({}, 'tool_calls'),
      ],
    });
    const response = final(await collect(model().stream(ask())));
    expect(response.toolCalls).toEqual([
      { type: 'tool_call', callId: 'call_0', name: 'search', arguments: '{"q":"cats"}' },
      { type: 'tool_call', callId: 'call_1', name: 'count', arguments: '{"n":3,,' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 0, outputTokens: 0, cachedTokens: 0 });
  });

  it('rethrows an abort in the middle of a stream unchanged', async () => {
    const controller = new AbortController();
    server.enqueue((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk({ content: 'partial' }))}\n\n`); // never ends
    });
    const seen: ModelStreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of model().stream(ask(), { signal: controller.signal })) {
          seen.push(event);
          controller.abort();
        }
      })(),
    );
    expect(error).toBe(controller.signal.reason);
    expect(seen).toEqual([{ type: 'text_delta', delta: 'partial' }]);
  });

  it('streams a refusal and a length-truncated answer', async () => {
    server.enqueue(
      { sse: [chunk({ refusal: 'I can' }), chunk({ refusal: 'not.' }, 'stop')] },
      { sse: [chunk({ content: 'abc' }, 'length')] },
    );
    const m = model();
    expect(final(await collect(m.stream(ask())))).toMatchObject({
      text: 'I cannot.',
      refusal: 'I cannot.',
      finishReason: 'refusal',
    });
    expect(final(await collect(m.stream(ask())))).toMatchObject({
      text: 'abc',
      finishReason: 'length',
    });
  });
});

describe('StreamAccumulator', () => {
  const raw = (value: unknown) => value as OpenAI.Chat.ChatCompletionChunk;

  it('keeps the first id and name, uses the last usage and falls back to the given model', () => {
    const acc = new StreamAccumulator('fallback');
    acc.add(raw({ ...chunk(toolDelta(0, '{', { id: 'x', name: 'f' })), model: '' }));
    acc.add(raw({ ...chunk(toolDelta(0, '}', { id: 'x', name: 'f' })), model: '' }));
    acc.add(raw({ ...usageChunk({ prompt: 1, completion: 1 }), model: '' }));
    acc.add(raw({ ...usageChunk({ prompt: 7, completion: 2 }), model: '' }));
    expect(acc.finish()).toMatchObject({
      toolCalls: [{ callId: 'x', name: 'f', arguments: '{}' }],
      usage: { inputTokens: 7, outputTokens: 2, cachedTokens: 0 },
      finishReason: 'other',
      model: 'fallback',
    });
  });

  it('invents a call id when the server sends none and tolerates a missing index', () => {
    const acc = new StreamAccumulator('m');
    const events = acc.add(
      raw(chunk({ tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }, 'tool_calls')),
    );
    expect(events).toEqual([
      { type: 'tool_call_delta', index: 0, name: 'f', argumentsDelta: '{}' },
    ]);
    const [call] = acc.finish().toolCalls;
    expect(call?.callId).toMatch(/^call_\w+$/);
    expect(call?.arguments).toBe('{}');
  });

  it('throws ModelBehaviorError when the stream carried no answer', () => {
    const acc = new StreamAccumulator('m');
    acc.add(raw(usageChunk({ prompt: 1, completion: 0 })));
    expect(() => acc.finish()).toThrow(ModelBehaviorError);
  });
});
