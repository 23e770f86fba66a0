import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  APICallError,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { MockLanguageModelV3, MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel } from '../../src/ai-sdk.js';
import { Agent, ModelBehaviorError, ModelError, type LevelSessionStore } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { add, collect, tempLevelStore } from '../helpers/agent-fixtures.js';
import { collect as collectModel, final } from '../helpers/chat-completions-server.js';
import { modelFailure } from '../helpers/model-failure.js';

let level: { store: LevelSessionStore; cleanup(): Promise<void> };
beforeEach(async () => {
  level = await tempLevelStore();
});
afterEach(async () => {
  await level.cleanup();
});

const usage = (input: number, output: number, cached = 0, reasoning?: number) => ({
  inputTokens: { total: input, noCache: input - cached, cacheRead: cached, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning },
});
const finish = (
  unified: 'stop' | 'tool-calls' | 'length',
  input: number,
  output: number,
  cached = 0,
  reasoning?: number,
) =>
  ({
    type: 'finish',
    finishReason: { unified, raw: unified },
    usage: usage(input, output, cached, reasoning),
  }) as const;

const generated = (
  content: LanguageModelV4GenerateResult['content'],
  reason: 'stop' | 'tool-calls',
  u: ReturnType<typeof usage>,
): LanguageModelV4GenerateResult => ({
  content,
  finishReason: { unified: reason, raw: reason },
  usage: u,
  warnings: [],
  response: { modelId: 'mock-model-1' },
});
const streamOf = (parts: LanguageModelV4StreamPart[]) => ({
  stream: convertArrayToReadableStream(parts),
});
const user = (content: string) => ({ type: 'message' as const, role: 'user' as const, content });

/** What the model must have been sent on its second call of the `add` round trip. */
const secondPrompt = [
  { role: 'system', content: 'Use the tools.' },
  { role: 'user', content: [{ type: 'text', text: 'What is 19 + 23?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'add', input: { a: 19, b: 23 } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'add',
        output: { type: 'text', value: '42' },
      },
    ],
  },
];
const roundTripItems = [
  { type: 'tool_call', callId: 'call_1', name: 'add', arguments: '{"a":19,"b":23}', agent: 'calc' },
  { type: 'tool_result', callId: 'call_1', name: 'add', output: '42' },
  { type: 'message', role: 'assistant', content: '19 + 23 = 42', agent: 'calc' },
];

describe('aiSdkModel with the AI SDK mock language model', () => {
  it('runs a tool call round trip in generate mode', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: [
        generated(
          [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'add', input: '{"a":19,"b":23}' }],
          'tool-calls',
          usage(50, 10, 20),
        ),
        generated([{ type: 'text', text: '19 + 23 = 42' }], 'stop', usage(80, 8, 40, 3)),
      ],
    });
    const agent = new Agent({
      name: 'calc',
      instructions: 'Use the tools.',
      model: aiSdkModel(mock, { price: { inputPerMillion: 1, outputPerMillion: 2 } }),
      tools: [add],
      store: level.store,
    });
    const result = await agent.run('What is 19 + 23?', { sessionId: 'ai-1', userId: 'ann' });

    expect(result.output).toBe('19 + 23 = 42');
    expect(result.newItems).toEqual(roundTripItems);
    expect(result.usage).toMatchObject({
      inputTokens: 130,
      outputTokens: 18,
      cachedTokens: 60,
      reasoningTokens: 3,
    });
    expect(mock.doGenerateCalls).toHaveLength(2);
    const first = mock.doGenerateCalls[0]!;
    expect(first.prompt).toEqual(secondPrompt.slice(0, 2));
    expect(first.tools).toEqual([
      {
        type: 'function',
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: expect.objectContaining({ type: 'object', required: ['a', 'b'] }) as unknown,
      },
    ]);
    expect(mock.doGenerateCalls[1]!.prompt).toEqual(secondPrompt);
  });

  it('runs the same round trip streamed, the tool input split in deltas', async () => {
    const mock = new MockLanguageModelV4({
      doStream: [
        streamOf([
          { type: 'stream-start', warnings: [] },
          { type: 'response-metadata', modelId: 'mock-model-1' },
          { type: 'tool-input-start', id: 'call_1', toolName: 'add' },
          { type: 'tool-input-delta', id: 'call_1', delta: '{"a":' },
          { type: 'tool-input-delta', id: 'call_1', delta: '19,"b"' },
          { type: 'tool-input-delta', id: 'call_1', delta: ':23}' },
          { type: 'tool-input-end', id: 'call_1' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'add', input: '{"a":19,"b":23}' },
          finish('tool-calls', 50, 10),
        ]),
        streamOf([
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: '19 + 23 ' },
          { type: 'text-delta', id: 't1', delta: '= 42' },
          { type: 'text-end', id: 't1' },
          finish('stop', 80, 8),
        ]),
      ],
    });
    const agent = new Agent({
      name: 'calc',
      instructions: 'Use the tools.',
      model: aiSdkModel(mock, { name: 'mock', price: { inputPerMillion: 0, outputPerMillion: 0 } }),
      tools: [add],
      store: level.store,
    });
    const stream = agent.stream('What is 19 + 23?', { sessionId: 'ai-2' });
    const events = await collect(stream);
    const result = await stream.result;

    expect(events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : []))).toEqual([
      '19 + 23 ',
      '= 42',
    ]);
    expect(events.find((e) => e.type === 'tool_call_finished')).toMatchObject({
      callId: 'call_1',
      output: '42',
    });
    expect(result.newItems).toEqual(roundTripItems);
    expect(result.usage).toMatchObject({ inputTokens: 130, outputTokens: 18 });
    expect(mock.doGenerateCalls).toHaveLength(0);
    expect(mock.doStreamCalls[1]!.prompt).toEqual(secondPrompt);
  });

  it('assembles interleaved split tool inputs and whole tool calls in the order they began', async () => {
    const mock = new MockLanguageModelV4({
      doStream: streamOf([
        { type: 'tool-input-start', id: 'a', toolName: 'add' },
        { type: 'tool-input-start', id: 'b', toolName: 'add' },
        { type: 'tool-input-delta', id: 'b', delta: '{"a":3,' },
        { type: 'tool-input-delta', id: 'a', delta: '{"a":1,' },
        { type: 'tool-input-delta', id: 'a', delta: '"b":2}' },
        { type: 'tool-input-delta', id: 'b', delta: '"b":4}' },
        { type: 'tool-call', toolCallId: 'c', toolName: 'add', input: '{"a":5,"b":6}' },
        {
          type: 'tool-call',
          toolCallId: 'x',
          toolName: 'web',
          input: '{}',
          providerExecuted: true,
        },
        finish('tool-calls', 5, 5),
      ]),
    });
    const events = await collectModel(aiSdkModel(mock).stream({ items: [user('go')], tools: [] }));
    const deltas = events.filter((e) => e.type === 'tool_call_delta');
    expect(deltas.map((e) => [e.index, e.argumentsDelta])).toEqual([
      [0, ''],
      [1, ''],
      [1, '{"a":3,'],
      [0, '{"a":1,'],
      [0, '"b":2}'],
      [1, '"b":4}'],
      [2, '{"a":5,"b":6}'],
    ]);
    expect(final(events)).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [
        { callId: 'a', name: 'add', arguments: '{"a":1,"b":2}' },
        { callId: 'b', name: 'add', arguments: '{"a":3,"b":4}' },
        { callId: 'c', name: 'add', arguments: '{"a":5,"b":6}' },
      ],
      model: 'mock-model-id',
    });
  });

  it('fails a stream on an error part or a missing finish', async () => {
    const broken = new MockLanguageModelV4({
      doStream: [
        streamOf([
          { type: 'text-delta', id: 't', delta: 'Hel' },
          { type: 'error', error: new Error('overloaded') },
        ]),
        streamOf([{ type: 'text-delta', id: 't', delta: 'Hel' }]),
      ],
    });
    const model = aiSdkModel(broken);
    await expect(collectModel(model.stream({ items: [user('x')], tools: [] }))).rejects.toThrow(
      new ModelError('The model request failed: overloaded'),
    );
    await expect(
      collectModel(model.stream({ items: [user('x')], tools: [] })),
    ).rejects.toBeInstanceOf(ModelBehaviorError);
  });

  it('turns an APICallError into a ModelError with its status, retryability and request id', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: () => {
        throw new APICallError({
          message: 'Too many requests',
          url: 'http://127.0.0.1:9/v1/messages',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'x-request-id': 'req_429' },
          isRetryable: true,
        });
      },
    });
    const agent = new Agent({
      name: 'a',
      model: aiSdkModel(mock),
      store: new MemorySessionStore(),
    });
    const error = await modelFailure(agent.run('hi'));
    expect(error).toMatchObject({ status: 429, retryable: true, requestId: 'req_429' });
    expect(error.message).toContain('Too many requests');
  });

  it('maps model settings, finish reasons and the output schema to the call options', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: generated([{ type: 'text', text: '{"n":1}' }], 'stop', usage(1, 1)),
    });
    const agent = new Agent({
      name: 'a',
      model: aiSdkModel(mock),
      tools: [add],
      outputType: z.object({ n: z.number() }),
      store: new MemorySessionStore(),
      modelSettings: { temperature: 0.2, reasoningEffort: 'low' },
    });
    const result = await agent.run('n?', {
      modelSettings: {
        topP: 0.5,
        maxOutputTokens: 64,
        seed: 9,
        toolChoice: { name: 'add' },
        extra: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      },
    });
    expect(result.output).toEqual({ n: 1 });
    expect(mock.doGenerateCalls[0]).toMatchObject({
      temperature: 0.2,
      topP: 0.5,
      maxOutputTokens: 64,
      seed: 9,
      reasoning: 'low',
      toolChoice: { type: 'tool', toolName: 'add' },
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      responseFormat: { type: 'json', name: 'output' },
    });

    // A v3 model gets the same options but `reasoning`, which its specification lacks.
    const v3 = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'cut' }],
        finishReason: { unified: 'length', raw: 'max_tokens' },
        usage: usage(1, 1),
        warnings: [],
      },
    });
    const response = await aiSdkModel(v3).generate({
      items: [user('x')],
      tools: [],
      settings: { reasoningEffort: 'high', toolChoice: 'required' },
    });
    expect(response).toMatchObject({ text: 'cut', finishReason: 'length', model: 'mock-model-id' });
    expect(v3.doGenerateCalls[0]).not.toHaveProperty('reasoning');
    expect(v3.doGenerateCalls[0]).not.toHaveProperty('toolChoice'); // no tools: no choice
  });

  it('refuses what is not an AI SDK language model', () => {
    expect(() => aiSdkModel({ specificationVersion: 'v1' } as never)).toThrow(
      'aiSdkModel(): the model must be an AI SDK language model of specification v3 or v4',
    );
    expect(() => aiSdkModel(new MockLanguageModelV4(), { nmae: 'x' } as never)).toThrow(
      'aiSdkModel(): unknown option "nmae" (did you mean "name"?)',
    );
  });

  it('imports @ai-sdk/provider for types only, so the root import works without it', () => {
    const dir = join(import.meta.dirname, '..', '..', 'src');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    const users = files.filter((f) =>
      readFileSync(join(dir, f), 'utf8').includes("'@ai-sdk/provider'"),
    );
    expect(users.length).toBeGreaterThan(0);
    for (const file of users) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text).not.toMatch(/^import (?!type )[^;]*'@ai-sdk\/provider'/m);
    }
    const root = readFileSync(join(dir, 'index.ts'), 'utf8');
    expect(root).not.toMatch(/from '[^']*ai-sdk[^']*'/);
  });
});

describe('AI SDK prompt of richer items', () => {
  const items = [
    { type: 'message' as const, role: 'developer' as const, content: 'Be brief.' },
    { type: 'summary' as const, content: 'Cats.', upTo: 2 },
    {
      type: 'message' as const,
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'Look:' },
        { type: 'image' as const, url: 'https://example.test/cat.png' },
        { type: 'file' as const, data: 'JVBE', mediaType: 'application/pdf', filename: 'a.pdf' },
      ],
    },
  ];

  it('maps parts to file parts (v4 tagged, v3 plain), developer items to system messages', async () => {
    const v4 = new MockLanguageModelV4({
      doGenerate: generated([{ type: 'text', text: 'ok' }], 'stop', usage(1, 1)),
    });
    await aiSdkModel(v4).generate({ items, tools: [] });
    expect(v4.doGenerateCalls[0]!.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [{ type: 'text', text: 'Summary of the earlier conversation:\nCats.' }],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          {
            type: 'file',
            mediaType: 'image/*',
            data: { type: 'url', url: new URL('https://example.test/cat.png') },
          },
          {
            type: 'file',
            mediaType: 'application/pdf',
            filename: 'a.pdf',
            data: { type: 'data', data: 'JVBE' },
          },
        ],
      },
    ]);
    const v3 = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(1, 1),
        warnings: [],
      },
    });
    await aiSdkModel(v3).generate({ items, tools: [] });
    const files = (v3.doGenerateCalls[0]!.prompt[2]!.content as { type: string; data?: unknown }[])
      .filter((p) => p.type === 'file')
      .map((p) => p.data);
    expect(files).toEqual([new URL('https://example.test/cat.png'), 'JVBE']);
  });

  it('refuses a file given by provider id with a ModelBehaviorError', async () => {
    const mock = new MockLanguageModelV4();
    const request = {
      items: [
        {
          type: 'message' as const,
          role: 'user' as const,
          content: [{ type: 'file' as const, fileId: 'f-1' }],
        },
      ],
      tools: [],
    };
    await expect(aiSdkModel(mock).generate(request)).rejects.toBeInstanceOf(ModelBehaviorError);
    expect(mock.doGenerateCalls).toEqual([]);
  });
});
