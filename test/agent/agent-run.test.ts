import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Agent,
  defaultPrices,
  getRunContext,
  withPrices,
  type Item,
  type LevelSessionStore,
  type ModelPrice,
  type RunContext,
} from '../../src/index.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { add, multiply, tempLevelStore, ULID } from '../helpers/agent-fixtures.js';

/** The pricing formula of src/models/pricing.ts, per million tokens. */
function expectedCost(price: ModelPrice, input: number, cached: number, output: number): number {
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return (
    ((input - cached) * price.inputPerMillion +
      cached * cachedPrice +
      output * price.outputPerMillion) /
    1e6
  );
}

const user = (content: string): Item => ({ type: 'message', role: 'user', content });

describe('agent.run: the RunResult', () => {
  let level: { store: LevelSessionStore; cleanup(): Promise<void> };
  beforeEach(async () => {
    level = await tempLevelStore();
  });
  afterEach(async () => {
    await level.cleanup();
  });

  it('reports id, session, output, new items, turns, usage and times of a multi-step run', async () => {
    const model = new ScriptedModel(
      [
        {
          toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }],
          usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 40 },
        },
        {
          toolCalls: [{ name: 'multiply', arguments: { a: 5, b: 4 } }],
          usage: { inputTokens: 200, outputTokens: 30 },
        },
        {
          text: '(2 + 3) * 4 = 20',
          usage: { inputTokens: 300, outputTokens: 50, cachedTokens: 100 },
        },
      ],
      { recordCalls: true, name: 'gpt-4o-mini', price: null }, // priced by the table
    );
    const clock = new FakeClock();
    const agent = new Agent({
      name: 'calc',
      model,
      tools: [add, multiply],
      store: level.store,
      clock,
    });
    const result = await agent.run('What is (2 + 3) * 4?', {
      sessionId: 'chat-1',
      userId: 'alice',
    });

    expect(result.id).toMatch(ULID);
    expect(result.sessionId).toBe('chat-1');
    expect(result.userId).toBe('alice');
    expect(result.output).toBe('(2 + 3) * 4 = 20');
    expect(result.turns).toBe(3);
    expect(result.interrupted).toBe(false);
    expect(result.interruptionReason).toBeUndefined();
    expect(result.interruptions).toEqual([]);
    expect(result.startedAt).toBe(clock.now());
    expect(result.endedAt).toBe(clock.now());

    // The user input is not a new item; tool calls, their results and the answer are, in order.
    expect(result.newItems).toEqual([
      {
        type: 'tool_call',
        callId: 'call_1_0',
        name: 'add',
        arguments: '{"a":2,"b":3}',
        agent: 'calc',
      },
      { type: 'tool_result', callId: 'call_1_0', name: 'add', output: '5' },
      {
        type: 'tool_call',
        callId: 'call_3_0',
        name: 'multiply',
        arguments: '{"a":5,"b":4}',
        agent: 'calc',
      },
      { type: 'tool_result', callId: 'call_3_0', name: 'multiply', output: '20' },
      { type: 'message', role: 'assistant', content: '(2 + 3) * 4 = 20', agent: 'calc' },
    ]);

    // Each model call saw the previous tool results.
    expect(model.calls).toHaveLength(3);
    expect(model.calls[0]?.items).toEqual([user('What is (2 + 3) * 4?')]);
    expect(model.calls[1]?.items.at(-1)).toMatchObject({
      type: 'tool_result',
      name: 'add',
      output: '5',
    });
    expect(model.calls[2]?.items.at(-1)).toMatchObject({
      type: 'tool_result',
      name: 'multiply',
      output: '20',
    });
    expect(model.calls[0]?.tools.map((t) => t.name)).toEqual(['add', 'multiply']);
    model.assertComplete();

    // Usage sums the three model calls; cost follows the price table.
    const price = defaultPrices['gpt-4o-mini'];
    if (!price) throw new Error('gpt-4o-mini is missing from the default prices');
    expect(result.usage.inputTokens).toBe(600);
    expect(result.usage.outputTokens).toBe(100);
    expect(result.usage.cachedTokens).toBe(140);
    const cost =
      expectedCost(price, 100, 40, 20) +
      expectedCost(price, 200, 0, 30) +
      expectedCost(price, 300, 100, 50);
    expect(result.usage.costUsd).toBeCloseTo(cost, 12);
  });

  it('gives a fresh ULID session and run id to a run without sessionId, and real times', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }], { recordCalls: true });
    const agent = new Agent({ name: 'a', model, store: new MemorySessionStore() });
    const before = Date.now();
    const first = await agent.run('hi');
    const second = await agent.run('hi');
    const after = Date.now();
    expect(first.sessionId).toMatch(ULID);
    expect(first.id).toMatch(ULID);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.id).not.toBe(first.id);
    expect(first.startedAt).toBeGreaterThanOrEqual(before);
    expect(first.startedAt).toBeLessThanOrEqual(first.endedAt);
    expect(second.endedAt).toBeLessThanOrEqual(after);
    // Separate sessions: the second run's model saw only its own input.
    expect(model.calls[1]?.items).toEqual([user('hi')]);
  });

  it('prices dated model names by their table prefix; an unknown model costs undefined', async () => {
    const dated = new ScriptedModel(
      [{ text: 'x', usage: { inputTokens: 1000, outputTokens: 500 } }],
      { recordCalls: true, name: 'gpt-4o-2024-08-06', price: null },
    );
    const priced = await new Agent({
      name: 'a',
      model: dated,
      store: new MemorySessionStore(),
    }).run('hi');
    const price = defaultPrices['gpt-4o'];
    if (!price) throw new Error('gpt-4o is missing from the default prices');
    expect(priced.usage.costUsd).toBeCloseTo(expectedCost(price, 1000, 0, 500), 12);

    const unknown = new ScriptedModel(
      [{ text: 'x', usage: { inputTokens: 1000, outputTokens: 500 } }],
      { recordCalls: true, name: 'my-llm', price: null },
    );
    const unpriced = await new Agent({
      name: 'a',
      model: unknown,
      store: new MemorySessionStore(),
    }).run('hi');
    expect(unpriced.usage).toMatchObject({ inputTokens: 1000, outputTokens: 500 });
    expect(unpriced.usage.costUsd).toBeUndefined();
  });

  it('lets callers extend the price table through AgentOptions.prices', async () => {
    const model = new ScriptedModel(
      [
        {
          toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }],
          usage: { inputTokens: 1000, outputTokens: 100, cachedTokens: 500 },
        },
        { text: '2', usage: { inputTokens: 2000, outputTokens: 300 } },
      ],
      { recordCalls: true, name: 'my-llm', price: null },
    );
    const mine: ModelPrice = { inputPerMillion: 4, cachedInputPerMillion: 1, outputPerMillion: 16 };
    const prices = withPrices({ 'my-llm': mine });
    expect(prices['gpt-4o']).toEqual(defaultPrices['gpt-4o']); // the defaults are kept
    const agent = new Agent({
      name: 'a',
      model,
      tools: [add],
      store: new MemorySessionStore(),
      prices,
    });
    const result = await agent.run('1 + 1?');
    // (500*4 + 500*1 + 100*16 + 2000*4 + 300*16) / 1e6
    expect(result.usage.costUsd).toBeCloseTo(0.0169, 12);
    expect(result.usage.costUsd).toBeCloseTo(
      expectedCost(mine, 1000, 500, 100) + expectedCost(mine, 2000, 0, 300),
      12,
    );
  });
});

describe('agent.run: instructions', () => {
  it('sends string instructions with every model request', async () => {
    const model = new ScriptedModel(
      [{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: '3' }],
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'a',
      instructions: 'Be terse.',
      model,
      tools: [add],
      store: new MemorySessionStore(),
    });
    await agent.run('1 + 2?');
    expect(model.calls.map((c) => c.instructions)).toEqual(['Be terse.', 'Be terse.']);
  });

  it('resolves function instructions from the run context (userId, metadata)', async () => {
    const seen: RunContext[] = [];
    const model = new ScriptedModel([{ text: 'hello Alice' }], { recordCalls: true });
    const agent = new Agent({
      name: 'a',
      instructions: (ctx) => {
        seen.push(ctx);
        expect(getRunContext()).toBe(ctx); // also reachable through AsyncLocalStorage
        return `User ${ctx.userId ?? '?'} speaks ${ctx.get<string>('lang') ?? '?'}.`;
      },
      model,
      store: new MemorySessionStore(),
    });
    await agent.run('hi', {
      sessionId: 's1',
      userId: 'alice',
      metadata: { lang: 'fr' },
    });
    expect(model.calls[0]?.instructions).toBe('User alice speaks fr.');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ sessionId: 's1', userId: 'alice', metadata: { lang: 'fr' } });
  });
});

describe('agent.createSession', () => {
  it('shares the conversation between runs and resolves instructions once', async () => {
    let resolved = 0;
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
        { text: 'It is 4.' },
        { text: 'Doubled: 8.' },
      ],
      { recordCalls: true },
    );
    const store = new MemorySessionStore();
    const agent = new Agent({
      name: 'a',
      instructions: (ctx) => {
        resolved += 1;
        return `Helping ${ctx.userId ?? 'nobody'}`;
      },
      model,
      tools: [add],
      store,
    });
    const session = await agent.createSession({ sessionId: 'bound-1', userId: 'bob' });
    expect(session.sessionId).toBe('bound-1');
    const first = await session.run('2 + 2?');
    const second = await session.run('And doubled?');
    await session.close();

    expect(resolved).toBe(1);
    expect(first.output).toBe('It is 4.');
    expect(second.output).toBe('Doubled: 8.');
    expect(second.sessionId).toBe('bound-1');
    expect(second.id).not.toBe(first.id);
    expect(model.calls.map((c) => c.instructions)).toEqual([
      'Helping bob',
      'Helping bob',
      'Helping bob',
    ]);
    // The second run's model request holds the first run's input and items, then the new input.
    expect(model.calls[2]?.items).toEqual([
      user('2 + 2?'),
      ...first.newItems,
      user('And doubled?'),
    ]);
    expect(second.newItems).toEqual([
      { type: 'message', role: 'assistant', content: 'Doubled: 8.', agent: 'a' },
    ]);

    // The session lives in the agent's store under the bound user.
    const info = await agent
      .runtimeFor(store)
      .getSessionInfo({ sessionId: 'bound-1', userId: 'bob' });
    expect(info.historyLength).toBe(6);
    await expect(session.run('more?')).rejects.toThrow(/closed/);
  });
});
