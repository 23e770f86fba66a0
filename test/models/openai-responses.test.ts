import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, ModelError, OpenAIModel, type LevelSessionStore } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { add, collect, tempLevelStore } from '../helpers/agent-fixtures.js';
import type { ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { collect as collectModel, final } from '../helpers/chat-completions-server.js';
import { toChatMessages } from '../../src/models/chat-completions-api.js';
import { toResponsesInput } from '../../src/models/responses-api.js';
import { modelFailure } from '../helpers/model-failure.js';
import {
  functionCallOut,
  messageOut,
  reasoningOut,
  responseBody,
  responseEvents,
  startResponsesServer,
} from '../helpers/responses-server.js';

let server: ChatCompletionsServer;
let level: { store: LevelSessionStore; cleanup(): Promise<void> };
beforeEach(async () => {
  server = await startResponsesServer();
  level = await tempLevelStore();
});
afterEach(async () => {
  await server.close();
  await level.cleanup();
});

const KEY = 'sk-responses-secret-1234567890';
const responses = (model = 'o4-mini') =>
  new OpenAIModel({ model, api: 'responses', apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 });
const input = (n: number) => server.body(n)['input'] as Record<string, unknown>[];

/** A reasoning step that calls `add`, then a final answer: the same script in both modes. */
const firstAnswer = responseBody({
  output: [
    reasoningOut('rs_1', 'ENCRYPTED-1', ['Adding two numbers.']),
    functionCallOut('call_r1', 'add', '{"a":19,"b":23}'),
  ],
  usage: { input: 50, output: 30, cached: 10, reasoning: 20 },
  model: 'o4-mini-2025-04-16',
});
const secondAnswer = responseBody({
  output: [reasoningOut('rs_2', 'ENCRYPTED-2'), messageOut('19 + 23 = 42')],
  usage: { input: 90, output: 12, cached: 40, reasoning: 4 },
  model: 'o4-mini-2025-04-16',
});

function expectRoundTrip() {
  expect(server.requests.map((r) => r.url)).toEqual(['/v1/responses', '/v1/responses']);
  const first = server.body(0);
  // No server-side state: never stored, never chained, reasoning asked back encrypted.
  expect(first).toMatchObject({
    model: 'o4-mini',
    store: false,
    include: ['reasoning.encrypted_content'],
    instructions: 'Use the tools.',
  });
  expect(first).not.toHaveProperty('previous_response_id');
  expect(server.body(1)).not.toHaveProperty('previous_response_id');
  expect(input(0)).toEqual([{ role: 'user', content: 'What is 19 + 23?' }]);
  const tools = first['tools'] as Record<string, unknown>[];
  expect(tools).toHaveLength(1);
  expect(tools[0]).toMatchObject({ type: 'function', name: 'add', strict: false });
  expect(tools[0]?.['parameters']).toMatchObject({ type: 'object', required: ['a', 'b'] });
  // The whole history again, the reasoning item passed back before its function call.
  expect(input(1)).toEqual([
    { role: 'user', content: 'What is 19 + 23?' },
    {
      type: 'reasoning',
      id: 'rs_1',
      encrypted_content: 'ENCRYPTED-1',
      summary: [{ type: 'summary_text', text: 'Adding two numbers.' }],
    },
    { type: 'function_call', call_id: 'call_r1', name: 'add', arguments: '{"a":19,"b":23}' },
    { type: 'function_call_output', call_id: 'call_r1', output: '42' },
  ]);
}

const expectedItems = [
  {
    type: 'reasoning',
    id: 'rs_1',
    encryptedContent: 'ENCRYPTED-1',
    summary: ['Adding two numbers.'],
    agent: 'calc',
  },
  {
    type: 'tool_call',
    callId: 'call_r1',
    name: 'add',
    arguments: '{"a":19,"b":23}',
    agent: 'calc',
  },
  { type: 'tool_result', callId: 'call_r1', name: 'add', output: '42' },
  { type: 'reasoning', id: 'rs_2', encryptedContent: 'ENCRYPTED-2', agent: 'calc' },
  { type: 'message', role: 'assistant', content: '19 + 23 = 42', agent: 'calc' },
];

const calc = (store = level.store) =>
  new Agent({
    name: 'calc',
    instructions: 'Use the tools.',
    model: responses(),
    tools: [add],
    store,
  });

describe('OpenAIModel with the Responses API', () => {
  it('runs a tool call round trip, keeping reasoning items in the history (JSON)', async () => {
    server.enqueue({ json: firstAnswer }, { json: secondAnswer });
    const result = await calc().run('What is 19 + 23?', { sessionId: 'r-1', userId: 'ann' });

    expect(result.output).toBe('19 + 23 = 42');
    expect(result.newItems).toEqual(expectedItems);
    expectRoundTrip();
    expect(server.body(0)['stream']).toBe(false);
    // Reasoning and cached tokens are parts of the totals, summed over both calls.
    expect(result.usage).toMatchObject({
      inputTokens: 140,
      outputTokens: 42,
      cachedTokens: 50,
      reasoningTokens: 24,
    });
    expect(result.usage.costUsd).toBeGreaterThan(0);

    // The next run of the session sends every stored item back, reasoning included.
    server.enqueue({ json: responseBody({ output: [messageOut('Still 42.')] }) });
    await calc().run('And again?', { sessionId: 'r-1', userId: 'ann' });
    expect(
      input(2)
        .filter((i) => i['type'] === 'reasoning')
        .map((i) => i['id']),
    ).toEqual(['rs_1', 'rs_2']);
    expect(input(2)).toContainEqual({ role: 'assistant', content: '19 + 23 = 42' });
  });

  it('runs the same round trip streamed over SSE through agent.stream', async () => {
    server.enqueue(
      { sse: responseEvents(firstAnswer), done: false },
      { sse: responseEvents(secondAnswer), done: false },
    );
    const stream = calc().stream('What is 19 + 23?', { sessionId: 'r-2', userId: 'ann' });
    const events = await collect(stream);
    const result = await stream.result;

    expect(server.body(0)['stream']).toBe(true);
    const deltas = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(deltas).toEqual(['19 +', ' 23 ', '= 42']);
    expect(events.find((e) => e.type === 'tool_call_finished')).toMatchObject({
      callId: 'call_r1',
      output: '42',
      isError: false,
    });
    expect(result.output).toBe('19 + 23 = 42');
    expect(result.newItems).toEqual(expectedItems);
    expectRoundTrip();
    expect(result.usage).toMatchObject({ inputTokens: 140, outputTokens: 42, reasoningTokens: 24 });
  });

  it('streams split function-call arguments as tool_call_delta events of one call', async () => {
    server.enqueue({ sse: responseEvents(firstAnswer, 3), done: false });
    const events = await collectModel(
      responses().stream({ items: [{ type: 'message', role: 'user', content: 'hi' }], tools: [] }),
    );
    const calls = events.filter((e) => e.type === 'tool_call_delta');
    expect(calls[0]).toEqual({
      type: 'tool_call_delta',
      index: 0,
      callId: 'call_r1',
      name: 'add',
      argumentsDelta: '',
    });
    expect(calls.map((e) => e.argumentsDelta).join('')).toBe('{"a":19,"b":23}');
    expect(calls.length).toBeGreaterThan(3);
    expect(final(events).toolCalls).toEqual([
      { type: 'tool_call', callId: 'call_r1', name: 'add', arguments: '{"a":19,"b":23}' },
    ]);
  });

  it('interrupts with a ModelError on an HTTP error, the API key redacted', async () => {
    server.enqueue({
      status: 401,
      error: `Incorrect API key provided: ${KEY}`,
      headers: { 'x-request-id': 'req_resp_401' },
    });
    const agent = new Agent({ name: 'a', model: responses(), store: level.store });
    const error = await modelFailure(agent.run('hi', { sessionId: 'r-401' }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 401, requestId: 'req_resp_401', retryable: false });
    expect(error.message).toContain('Incorrect API key provided');
    const everything = JSON.stringify(error) + error.message + String(error.stack);
    expect(everything).not.toContain(KEY);
    const stored = JSON.stringify(await level.store.load({ sessionId: 'r-401' }));
    expect(stored).toContain('Incorrect API key provided');
    expect(stored).not.toContain(KEY);
  });

  it('a response.failed event in a stream is a ModelError; an HTTP 500 is retryable', async () => {
    const failed = responseBody({
      output: [],
      status: 'failed',
      error: { code: 'server_error', message: 'The server had an error' },
    });
    server.enqueue({ sse: responseEvents(failed), done: false }, { status: 500, error: 'down' });
    const model = responses();
    const request = {
      items: [{ type: 'message' as const, role: 'user' as const, content: 'hi' }],
      tools: [],
    };
    await expect(collectModel(model.stream(request))).rejects.toMatchObject({
      name: 'ModelError',
      retryable: true,
      message: expect.stringContaining('server_error: The server had an error') as unknown,
    });
    await expect(model.generate(request)).rejects.toMatchObject({ status: 500, retryable: true });
  });

  it('asks for structured output with text.format json_schema and parses it', async () => {
    server.enqueue({ json: responseBody({ output: [messageOut('{"n":7}')] }) });
    const agent = new Agent({
      name: 'typed',
      model: responses(),
      outputType: z.object({ n: z.number() }),
      store: new MemorySessionStore(),
    });
    const result = await agent.run('n?');
    expect(result.output).toEqual({ n: 7 });
    expect(server.body(0)['text']).toEqual({
      format: {
        type: 'json_schema',
        name: 'output',
        strict: false,
        schema: expect.objectContaining({ type: 'object', required: ['n'] }) as unknown,
      },
    });
  });

  it('reports a refusal and an answer cut off by max_output_tokens', async () => {
    server.enqueue(
      { json: responseBody({ output: [messageOut('I cannot help with that.', 'refusal')] }) },
      {
        json: responseBody({
          output: [messageOut('Once upon')],
          status: 'incomplete',
          incompleteReason: 'max_output_tokens',
        }),
      },
    );
    const model = responses();
    const request = {
      items: [{ type: 'message' as const, role: 'user' as const, content: 'x' }],
      tools: [],
    };
    expect(await model.generate(request)).toMatchObject({
      text: 'I cannot help with that.',
      refusal: 'I cannot help with that.',
      finishReason: 'refusal',
    });
    expect(await model.generate(request)).toMatchObject({
      text: 'Once upon',
      finishReason: 'length',
    });
  });

  it('sends model settings as Responses fields, extra ones passed through', async () => {
    server.enqueue({ json: responseBody({ output: [messageOut('ok')] }) });
    const agent = new Agent({
      name: 'calc',
      model: responses(),
      tools: [add],
      store: new MemorySessionStore(),
      modelSettings: { temperature: 0.3, reasoningEffort: 'high', maxOutputTokens: 5000 },
    });
    await agent.run('hi', {
      modelSettings: {
        toolChoice: { name: 'add' },
        parallelToolCalls: false,
        topP: 0.9,
        seed: 7,
        extra: {
          service_tier: 'flex',
          prompt_cache_key: 'k1',
          // Server-side state stays off whatever extra says.
          store: true,
          previous_response_id: 'resp_old',
          include: ['message.output_text.logprobs'],
        },
      },
    });
    const body = server.body(0);
    expect(body).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 5000,
      tool_choice: { type: 'function', name: 'add' },
      parallel_tool_calls: false,
      reasoning: { effort: 'high' },
      service_tier: 'flex',
      prompt_cache_key: 'k1',
      store: false,
    });
    expect(body['include']).toEqual([
      'message.output_text.logprobs',
      'reasoning.encrypted_content',
    ]);
    expect(body).not.toHaveProperty('previous_response_id');
    // The Responses API has no seed: it is not sent.
    expect(body).not.toHaveProperty('seed');
  });
});

describe('Chat Completions and reasoning items', () => {
  it('leaves reasoning items out of the messages it sends', () => {
    const messages = toChatMessages({
      items: [
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'reasoning', id: 'rs_1', encryptedContent: 'E' },
        { type: 'tool_call', callId: 'c1', name: 'add', arguments: '{}' },
        { type: 'tool_result', callId: 'c1', name: 'add', output: '1' },
      ],
      tools: [],
    });
    expect(messages).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '1' },
    ]);
  });
});

describe('Responses input of richer items', () => {
  it('maps image and file parts, developer and system items and summaries', () => {
    const input = toResponsesInput({
      items: [
        { type: 'message', role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'system', content: 'You are terse.' },
        { type: 'summary', content: 'They talked about cats.', upTo: 4 },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image', url: 'https://example.test/cat.png', detail: 'low' },
            { type: 'image', data: 'AAAA', mediaType: 'image/png' },
            { type: 'file', data: 'JVBE', mediaType: 'application/pdf', filename: 'a.pdf' },
            { type: 'file', fileId: 'file-1' },
          ],
        },
      ],
      tools: [],
    });
    expect(input).toEqual([
      { role: 'developer', content: 'Be brief.' },
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Summary of the earlier conversation:\nThey talked about cats.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look:' },
          { type: 'input_image', image_url: 'https://example.test/cat.png', detail: 'low' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
          {
            type: 'input_file',
            file_data: 'data:application/pdf;base64,JVBE',
            filename: 'a.pdf',
          },
          { type: 'input_file', file_id: 'file-1' },
        ],
      },
    ]);
  });
});
