import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  changeBudget,
  OpenAIModel,
  UnpricedModelError,
  withPrices,
  type ModelRequest,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { completion, chatCompletionsServerPerTest } from '../helpers/chat-completions-server.js';
import { callTool, noteTool } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const server = chatCompletionsServerPerTest();
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/**
 * What `action` returns and the `UnpricedModelWarning`s emitted while it runs (warnings are
 * delivered on a later tick).
 */
async function withWarnings<T>(action: () => Promise<T>): Promise<[T, Error[]]> {
  const seen: Error[] = [];
  const listener = (warning: Error) => {
    if (warning.name === 'UnpricedModelWarning') seen.push(warning);
  };
  process.on('warning', listener);
  try {
    const result = await action();
    await new Promise((resolve) => setImmediate(resolve));
    return [result, seen];
  } finally {
    process.off('warning', listener);
  }
}

/** A local model the default price table does not know, served by the local server. */
const localModel = (
  options: { price?: { inputPerMillion: number; outputPerMillion: number } } = {},
) =>
  new OpenAIModel({
    model: 'llama3.1:8b',
    apiKey: 'none-needed',
    baseURL: server.baseURL,
    ...options,
  });
const answer = (content: string) => ({
  json: completion({ content, model: 'llama3.1:8b', usage: { prompt: 100, completion: 20 } }),
});

describe('the token budget caps the next call', () => {
  /**
   * Calls `note` until told to stop, wanting 700 output tokens per answer and producing no
   * more than the request's `maxOutputTokens` (as a real server does). Input tokens are
   * reported as 0, so what the budget admits is exactly what the cap governs.
   */
  function wordyModel(): ScriptedModel {
    return new ScriptedModel(
      (request: ModelRequest): ScriptedResponse => {
        const outputTokens = Math.min(700, request.maxOutputTokens ?? Infinity);
        return { ...callTool('note'), usage: { inputTokens: 0, outputTokens } };
      },
      { recordCalls: true },
    );
  }

  it('a 1,500-token budget never lets more than 1,500 through', async () => {
    const { store } = await temps.open();
    const model = wordyModel();
    const agent = new Agent({
      name: 'w',
      model,
      tools: [noteTool],
      store,
      userBudget: { maxTokens: 1_500 },
    });
    const key = { sessionId: 'tokens', userId: 'alice' };
    const result = await agent.run('write', key);
    expect(result).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 3 });
    // each call is told what is left: 1,500, then 800, then 100 (without the cap: 2,100 in all)
    expect(model.calls.map((c) => c.maxOutputTokens)).toEqual([1_500, 800, 100]);
    expect(result.usage.outputTokens).toBe(1_500);
    const info = await agent.runtimeFor(store).getSessionInfo(key);
    expect(info.usage.inputTokens + info.usage.outputTokens).toBeLessThanOrEqual(1_500);
  });

  it('counts what the session used before, and sends no limit without a token budget', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel(
      [
        { text: 'one', usage: { inputTokens: 200, outputTokens: 100 } },
        { text: 'two' },
        { text: 'three' },
      ],
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'w', model, store });
    const key = { sessionId: 'budgeted', userId: 'alice' };
    await agent.run('first', key);
    await agent.runtimeFor(store).execute(key, changeBudget({ maxTokens: 1_000 }));
    await agent.run('second', key);
    await agent.run('third', { sessionId: 'free', userId: 'alice' });
    expect(model.calls.map((c) => c.maxOutputTokens)).toEqual([undefined, 700, undefined]);
    expect(model.calls[2]).not.toHaveProperty('maxOutputTokens');
  });
});

describe('a model without a known price', () => {
  it('warns once per agent and reports costUsd undefined', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'local', model: localModel(), tools: [noteTool], store });
    const key = { sessionId: 'local', userId: 'alice' };
    server.enqueue(
      {
        json: completion({
          toolCalls: [{ id: 'c1', name: 'note', arguments: '{}' }],
          model: 'llama3.1:8b',
        }),
      },
      answer('first'),
      answer('second'),
    );
    const [[first, second], warnings] = await withWarnings(async () => [
      await agent.run('one', key), // two model calls
      await agent.run('two', key),
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('"llama3.1:8b"');
    expect(first).toMatchObject({ output: 'first', usage: { inputTokens: 110 } });
    expect(first.usage.costUsd).toBeUndefined();
    expect(second.usage.costUsd).toBeUndefined();
    const stateJson = JSON.parse(JSON.stringify(first.state)) as { usage: object };
    expect(stateJson.usage).not.toHaveProperty('costUsd');
    // the session totals stay numbers: an unknown cost adds nothing
    expect((await agent.runtimeFor(store).getSessionInfo(key)).usage.costUsd).toBe(0);

    // The "already warned" set belongs to the agent: another agent warns again.
    server.enqueue(answer('third'));
    const other = new Agent({ name: 'other', model: localModel(), store });
    const [, again] = await withWarnings(() => other.run('three', key));
    expect(again).toHaveLength(1);
  });

  it('a price of its own (or a table entry) prices it without a warning', async () => {
    server.enqueue(answer('a'), answer('b'));
    const own = new Agent({
      name: 'own',
      model: localModel({ price: { inputPerMillion: 1_000_000, outputPerMillion: 0 } }),
    });
    const [byOwn, ownWarnings] = await withWarnings(() => own.run('hi'));
    expect(ownWarnings).toEqual([]);
    expect(byOwn.usage.costUsd).toBe(100); // 100 input tokens at $1 each
    const prices = withPrices({ 'llama3.1': { inputPerMillion: 0, outputPerMillion: 0 } });
    const listed = new Agent({ name: 'listed', model: localModel(), prices });
    const [byTable, tableWarnings] = await withWarnings(() => listed.run('hi'));
    expect(tableWarnings).toEqual([]);
    expect(byTable.usage.costUsd).toBe(0);
  });

  it('a cost budget on it raises UnpricedModelError before the call', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'local',
      model: localModel(),
      store,
      userBudget: { maxCostUsd: 5 },
    });
    const key = { sessionId: 'capped', userId: 'alice' };
    const error = await agent.run('hi', key).then(
      () => expect.fail('expected a rejection'),
      (e: unknown) => e as UnpricedModelError,
    );
    expect(error).toBeInstanceOf(UnpricedModelError);
    expect(error).toMatchObject({ code: 'UNPRICED_MODEL', sessionId: 'capped' });
    expect(error.message).toContain('"llama3.1:8b"');
    expect(server.requests).toHaveLength(0); // the model was never called
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.lastRun?.error).toMatchObject({ code: 'UNPRICED_MODEL' });

    // With a price the same budget is enforced normally.
    server.enqueue(answer('priced'));
    const priced = new Agent({
      name: 'local',
      model: localModel({ price: { inputPerMillion: 1, outputPerMillion: 1 } }),
      store,
      userBudget: { maxCostUsd: 5 },
    });
    expect((await priced.run('hi', key)).output).toBe('priced');
  });
});
