import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, OpenAIModel, defaultPrices, type LevelSessionStore } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { add, collect, tempLevelStore } from '../helpers/agent-fixtures.js';
import { modelFailure } from '../helpers/model-failure.js';
import {
  chunk,
  completion,
  startChatCompletionsServer,
  toolDelta,
  usageChunk,
  type ChatCompletionsServer,
} from '../helpers/chat-completions-server.js';

type Message = Record<string, unknown> & { role: string };

let server: ChatCompletionsServer;
let level: { store: LevelSessionStore; cleanup(): Promise<void> };
beforeEach(async () => {
  server = await startChatCompletionsServer();
  level = await tempLevelStore();
});
afterEach(async () => {
  await server.close();
  await level.cleanup();
});

const openai = (model = 'gpt-4o-mini', maxRetries = 0) =>
  new OpenAIModel({ model, apiKey: 'test-key', baseURL: server.baseURL, maxRetries });
const messages = (n: number) => server.body(n)['messages'] as Message[];

describe('Agent with OpenAIModel against a Chat Completions server', () => {
  it('runs a tool-call round trip', async () => {
    server.enqueue(
      {
        json: completion({
          toolCalls: [{ id: 'call_abc', name: 'add', arguments: '{"a":19,"b":23}' }],
          usage: { prompt: 50, completion: 10 },
          model: 'gpt-4o-mini-2024-07-18',
        }),
      },
      {
        json: completion({
          content: '19 + 23 = 42',
          usage: { prompt: 80, completion: 8, cached: 40 },
          model: 'gpt-4o-mini-2024-07-18',
        }),
      },
    );
    const agent = new Agent({
      name: 'calc',
      instructions: 'Use the tools.',
      model: openai(),
      tools: [add],
      store: level.store,
    });
    const result = await agent.run('What is 19 + 23?', { sessionId: 'oa-1', userId: 'frank' });

    expect(result.output).toBe('19 + 23 = 42');
    expect(result.turns).toBe(2);
    expect(result.newItems).toEqual([
      {
        type: 'tool_call',
        callId: 'call_abc',
        name: 'add',
        arguments: '{"a":19,"b":23}',
        agent: 'calc',
      },
      { type: 'tool_result', callId: 'call_abc', name: 'add', output: '42' },
      { type: 'message', role: 'assistant', content: '19 + 23 = 42', agent: 'calc' },
    ]);
    expect(server.requests).toHaveLength(2);

    // First request: system + user, the tool advertised with its JSON Schema.
    const first = server.body(0);
    expect(first['model']).toBe('gpt-4o-mini');
    expect(messages(0)).toEqual([
      { role: 'system', content: 'Use the tools.' },
      { role: 'user', content: 'What is 19 + 23?' },
    ]);
    const tools = first['tools'] as {
      type: string;
      function: { name: string; parameters: unknown };
    }[];
    expect(tools).toHaveLength(1);
    expect(tools[0]?.type).toBe('function');
    expect(tools[0]?.function.name).toBe('add');
    expect(tools[0]?.function.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });

    // Second request: the assistant tool call, then the tool output as a `tool` message.
    const second = messages(1);
    expect(second.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_abc',
            type: 'function',
            function: { name: 'add', arguments: '{"a":19,"b":23}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '42' },
    ]);

    // Usage from both answers, priced by the dated model name's table entry.
    const price = defaultPrices['gpt-4o-mini']!;
    const cost =
      (50 * price.inputPerMillion +
        10 * price.outputPerMillion +
        40 * price.inputPerMillion +
        40 * price.cachedInputPerMillion! +
        8 * price.outputPerMillion) /
      1e6;
    expect(result.usage).toMatchObject({ inputTokens: 130, outputTokens: 18, cachedTokens: 40 });
    expect(result.usage.costUsd).toBeCloseTo(cost, 12);
  });

  it('streams text deltas and tool calls through agent.stream', async () => {
    server.enqueue(
      {
        sse: [
          chunk({ role: 'assistant', content: null }),
          chunk(toolDelta(0, '{"a":', { id: 'call_s1', name: 'add' })),
          chunk(toolDelta(0, '2,"b":')),
          chunk(toolDelta(0, '3}')),
          chunk({}, 'tool_calls'),
          usageChunk({ prompt: 30, completion: 7 }),
        ],
      },
      {
        sse: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'The answer ' }),
          chunk({ content: 'is ' }),
          chunk({ content: '5.' }),
          chunk({}, 'stop'),
          usageChunk({ prompt: 45, completion: 4 }),
        ],
      },
    );
    const agent = new Agent({
      name: 'calc',
      model: openai(),
      tools: [add],
      store: new MemorySessionStore(),
    });
    const stream = agent.stream('2 + 3?');
    const events = await collect(stream);
    const result = await stream.result;

    expect(server.body(0)['stream']).toBe(true);
    expect(server.body(0)['stream_options']).toEqual({ include_usage: true });
    const deltas = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []));
    expect(deltas).toEqual(['The answer ', 'is ', '5.']);
    expect(result.output).toBe('The answer is 5.');
    const finished = events.find((e) => e.type === 'tool_call_finished');
    expect(finished).toMatchObject({ callId: 'call_s1', name: 'add', output: '5', isError: false });
    expect(events.at(-1)).toEqual({ type: 'run_finished', result });
    expect(messages(1).at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_s1', content: '5' });
    expect(result.usage).toMatchObject({ inputTokens: 75, outputTokens: 11 });
  });

  it('interrupts with a ModelError on the result on an HTTP 500', async () => {
    server.enqueue({ status: 500, error: 'internal failure' });
    const agent = new Agent({ name: 'a', model: openai(), store: level.store });
    const error = await modelFailure(agent.run('hi', { sessionId: 'oa-500' }));
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('internal failure');
    expect(server.requests).toHaveLength(1); // maxRetries 0
  });

  it('interrupts with a ModelError after the SDK retries a 500 that persists', async () => {
    server.enqueue(
      { status: 500, error: 'down', headers: { 'retry-after-ms': '1' } },
      { status: 500, error: 'still down', headers: { 'retry-after-ms': '1' } },
    );
    const agent = new Agent({
      name: 'a',
      model: openai('gpt-4o-mini', 1),
      store: new MemorySessionStore(),
    });
    const error = await modelFailure(agent.run('hi'));
    expect(error.message).toContain('still down');
    expect(server.requests).toHaveLength(2);
  });
});
