import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, OpenAIModel, RunState, toolkit } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { add, multiply, rejection } from '../helpers/agent-fixtures.js';
import {
  completion,
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../helpers/chat-completions-server.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

let server: ChatCompletionsServer;
let temp: TempStore;
beforeEach(async () => {
  server = await startChatCompletionsServer();
  temp = await openTempStore();
});
afterEach(async () => {
  await server.close();
  await temp.cleanup();
});

const openai = (temperature?: number) =>
  new OpenAIModel({
    model: 'gpt-4o-mini',
    apiKey: 'test-key',
    baseURL: server.baseURL,
    maxRetries: 0,
    ...(temperature === undefined ? {} : { temperature }),
  });

describe('modelSettings', () => {
  it('are checked at the call, unknown names naming the closest valid one', async () => {
    const model = new ScriptedModel([], { recordCalls: true });
    expect(
      () => new Agent({ name: 'a', model, modelSettings: { temprature: 1 } as never }),
    ).toThrow(
      'new Agent(): unknown option "modelSettings.temprature" (did you mean "modelSettings.temperature"?)',
    );
    const bad: [Record<string, unknown>, string][] = [
      [
        { temperature: 3 },
        'option "modelSettings.temperature" must be a number from 0 to 2, got 3',
      ],
      [{ topP: 0 }, 'option "modelSettings.topP" must be a number over 0 up to 1, got 0'],
      [
        { maxOutputTokens: 1.5 },
        'option "modelSettings.maxOutputTokens" must be a positive integer',
      ],
      [
        { toolChoice: 'sometimes' },
        `option "modelSettings.toolChoice" must be "auto", "required", "none" or { name: '<tool name>' }, got "sometimes"`,
      ],
      [{ toolChoice: { name: '' } }, 'option "modelSettings.toolChoice" must be'],
      [{ parallelToolCalls: 'yes' }, 'option "modelSettings.parallelToolCalls" must be a boolean'],
      [
        { reasoningEffort: 'extreme' },
        'option "modelSettings.reasoningEffort" must be one of "none"',
      ],
      [{ seed: 1.5 }, 'option "modelSettings.seed" must be an integer, got 1.5'],
      [{ extra: { at: new Date() } }, 'option "modelSettings.extra" must be plain JSON'],
    ];
    for (const [settings, message] of bad) {
      expect(() => new Agent({ name: 'a', model, modelSettings: settings })).toThrow(message);
    }
    const agent = new Agent({ name: 'a', model, store: new MemorySessionStore() });
    expect(() => agent.run('hi', { modelSettings: { topp: 0.5 } as never })).toThrow(
      'agent.run(): unknown option "modelSettings.topp" (did you mean "modelSettings.topP"?)',
    );
    expect(() => agent.stream('hi', { modelSettings: { seed: 'x' } as never })).toThrow(TypeError);
    // A resumed run keeps the settings it started with.
    expect(() => agent.resume('s', { modelSettings: {} } as never)).toThrow(
      'agent.resume(): unknown option "modelSettings"',
    );
    expect(model.calls).toEqual([]);
  });

  it('a toolChoice naming a tool the agent lacks is a TypeError and stores nothing', async () => {
    const model = new ScriptedModel([{ text: 'ok' }, { text: 'ok' }], { recordCalls: true });
    expect(
      () =>
        new Agent({
          name: 'a',
          model,
          tools: [add],
          modelSettings: { toolChoice: { name: 'sub' } },
        }),
    ).toThrow(
      'new Agent(): modelSettings.toolChoice names the tool "sub", which the agent does not have (its tools are add)',
    );
    const store = new MemorySessionStore();
    const plain = new Agent({ name: 'a', model, tools: [add], store });
    expect(() =>
      plain.run('hi', { sessionId: 's0', modelSettings: { toolChoice: { name: 'divide' } } }),
    ).toThrow(
      'agent.run(): modelSettings.toolChoice names the tool "divide", which the agent does not have (its tools are add)',
    );
    expect(await store.list({})).toMatchObject({ sessions: [] });
    // Toolkit tools are known once the session is bound: the run is refused before it starts.
    const kit = toolkit({ name: 'math', create: () => ({ tools: [multiply] }) });
    const agent = new Agent({ name: 'a', model, tools: [add], toolkits: [kit], store });
    const error = await rejection(
      agent.run('hi', { sessionId: 's1', modelSettings: { toolChoice: { name: 'divide' } } }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      'sendMessage(): modelSettings.toolChoice names the tool "divide", which the agent does not have (its tools are add, multiply)',
    );
    expect(await store.readHistory({ sessionId: 's1' })).toEqual([]);
    const bound = await agent.createSession({ sessionId: 's2' });
    expect(() => bound.run('hi', { modelSettings: { toolChoice: { name: 'divide' } } })).toThrow(
      'session.run(): modelSettings.toolChoice names the tool "divide"',
    );
    await bound.close();
    expect(model.calls).toEqual([]);
    // A toolkit's tool is a tool of the agent.
    await agent.run('hi', { sessionId: 's1', modelSettings: { toolChoice: { name: 'multiply' } } });
    expect(model.calls[0]?.settings).toEqual({ toolChoice: { name: 'multiply' } });
  });

  it("merges the run's settings over the agent's, key by key", async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }], { recordCalls: true });
    const agent = new Agent({
      name: 'a',
      model,
      store: new MemorySessionStore(),
      modelSettings: { temperature: 0.5, seed: 1, extra: { a: 1, b: 1 } },
    });
    await agent.run('first');
    await agent.run('second', {
      modelSettings: { temperature: 0.1, reasoningEffort: 'low', extra: { b: 2 } },
    });
    expect(model.calls[0]?.settings).toEqual({ temperature: 0.5, seed: 1, extra: { a: 1, b: 1 } });
    expect(model.calls[1]?.settings).toEqual({
      temperature: 0.1,
      seed: 1,
      reasoningEffort: 'low',
      extra: { a: 1, b: 2 },
    });
  });

  it('maps every setting to Chat Completions; the budget caps maxOutputTokens', async () => {
    server.enqueue(
      { json: completion({ content: 'ok' }) },
      { json: completion({ content: 'ok' }) },
    );
    const store = new MemorySessionStore();
    const agent = new Agent({
      name: 'a',
      model: openai(0.9),
      tools: [add],
      store,
      modelSettings: { maxOutputTokens: 5000, temperature: 0.2 },
      userBudget: { maxTokens: 1000 },
    });
    await agent.run('hi', {
      sessionId: 's1',
      modelSettings: {
        topP: 0.8,
        toolChoice: 'required',
        parallelToolCalls: false,
        reasoningEffort: 'minimal',
        seed: 42,
        extra: { user: 'u-1', service_tier: 'flex' },
      },
    });
    expect(server.body(0)).toMatchObject({
      temperature: 0.2, // the run's settings win over the model's own temperature
      top_p: 0.8,
      max_completion_tokens: 1000, // min(5000, what the user's budget has left)
      tool_choice: 'required',
      parallel_tool_calls: false,
      reasoning_effort: 'minimal',
      seed: 42,
      user: 'u-1',
      service_tier: 'flex',
    });
    // Below the budget the setting itself is sent; a named tool as a function choice.
    await agent.run('again', {
      sessionId: 's2',
      modelSettings: { maxOutputTokens: 200, toolChoice: { name: 'add' } },
    });
    expect(server.body(1)).toMatchObject({
      max_completion_tokens: 200,
      tool_choice: { type: 'function', function: { name: 'add' } },
    });
  });

  it("keeps the model's own temperature when no settings are given", async () => {
    server.enqueue({ json: completion({ content: 'ok' }) });
    const agent = new Agent({ name: 'a', model: openai(0.7), store: new MemorySessionStore() });
    await agent.run('hi');
    expect(server.body(0)['temperature']).toBe(0.7);
    expect(server.body(0)).not.toHaveProperty('tool_choice');
    expect(server.body(0)).not.toHaveProperty('seed');
  });

  it('travel in the RunState of an in-memory run, so resuming it elsewhere uses them', async () => {
    const model = new ScriptedModel([{ error: 'down' }, { text: 'back' }], { recordCalls: true });
    const agent = new Agent({ name: 'a', model, modelSettings: { seed: 5 } });
    const paused = await agent.run('hi', { modelSettings: { temperature: 0.6 } });
    expect(paused.interruptionReason).toBe('error');
    const state = RunState.fromJSON(JSON.stringify(paused.state));
    // Another agent without settings resumes the run (declaring that change compatible): the
    // stored ones are sent.
    const other = new Agent({ name: 'a', model, compatibleWith: () => true });
    const result = await other.resume(state);
    expect(result.output).toBe('back');
    expect(model.calls.map((c) => c.settings)).toEqual([
      { seed: 5, temperature: 0.6 },
      { seed: 5, temperature: 0.6 },
    ]);
  });

  it('are stored with the run: a resume from a freshly opened store sends the same ones', async () => {
    server.enqueue({ status: 500, error: 'down' });
    const first = new Agent({
      name: 'a',
      model: openai(),
      tools: [add],
      store: temp.store,
      modelSettings: { temperature: 0.4, extra: { user: 'u-9' } },
    });
    const paused = await first.run('hi', {
      sessionId: 's1',
      userId: 'ann',
      modelSettings: { toolChoice: { name: 'add' }, seed: 3, maxOutputTokens: 300 },
    });
    expect(paused.interruptionReason).toBe('error');
    const sent = server.body(0);
    await temp.store.close();

    // Another store instance on the same files, an agent without any settings of its own.
    const reopened = await LevelSessionStore.open({ path: temp.path });
    try {
      server.enqueue({ json: completion({ content: 'done' }) });
      const second = new Agent({
        name: 'a',
        model: openai(),
        tools: [add],
        store: reopened,
        compatibleWith: ({ changes }) => changes.every((c) => c.part === 'modelSettings'),
      });
      const result = await second.resume('s1', { userId: 'ann' });
      expect(result.output).toBe('done');
      const resent = server.body(1);
      for (const key of ['temperature', 'tool_choice', 'seed', 'max_completion_tokens', 'user']) {
        expect(resent[key]).toEqual(sent[key]);
      }
      expect(resent).toMatchObject({
        temperature: 0.4,
        tool_choice: { type: 'function', function: { name: 'add' } },
        seed: 3,
        max_completion_tokens: 300,
        user: 'u-9',
      });
    } finally {
      await reopened.close();
    }
  });
});
