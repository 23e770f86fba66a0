import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  LevelSessionStore,
  estimateTokens,
  type HistoryStrategy,
  type Item,
  type ModelRequest,
  type SummarizeContext,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { dangerTool, noteTool } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'long-chat', userId: 'alice' };
const tokensOf = (items: readonly Item[]) => items.reduce((sum, i) => sum + estimateTokens(i), 0);
const lastOf = (request: ModelRequest | undefined) => request?.items.at(-1);

/** Answers text, except that a message starting with `call:` calls that tool first. */
function toolingModel(): ScriptedModel {
  return new ScriptedModel(
    (request): ScriptedResponse => {
      const last = lastOf(request);
      if (last?.type === 'tool_result') return { text: `${last.name} gave ${last.output}` };
      const said = last?.type === 'message' && typeof last.content === 'string' ? last.content : '';
      const call = /^call:(\w+)/.exec(said);
      return call ? { toolCalls: [{ name: call[1]!, arguments: {} }] } : { text: `ok: ${said}` };
    },
    { recordCalls: true },
  );
}

const message = (n: number) =>
  `${n % 7 === 0 ? 'call:note ' : ''}message ${n}: ${'some words of conversation '.repeat(8)}`;

describe('the history option', () => {
  it('refuses a wrong strategy at new Agent() with a TypeError naming the option', () => {
    const model = new ScriptedModel([], { recordCalls: true });
    const make = (history: unknown) => () =>
      new Agent({ name: 'a', model, history: history as HistoryStrategy });
    expect(make({ lastItem: 3 })).toThrow(/unknown option "history.lastItem"/);
    expect(make({ maxToken: 3 })).toThrow(/did you mean "history.maxTokens"/);
    expect(make({ lastItems: 0 })).toThrow(/"history.lastItems" must be a positive integer/);
    expect(make({ maxTokens: 1.5 })).toThrow(/"history.maxTokens" must be a positive integer/);
    expect(make({ maxTokens: 100, countTokens: 3 })).toThrow(
      /"history.countTokens" must be a function/,
    );
    expect(make({ maxTokens: 100, keepTokens: 50 })).toThrow(
      /"history.keepTokens" needs "history.summarize"/,
    );
    expect(make({ maxTokens: 100, keepTokens: 100, summarize: () => 's' })).toThrow(
      /keepTokens" must be less than maxTokens/,
    );
    expect(make('everything')).toThrow(
      /"history" must be 'all', \{ lastItems \} or \{ maxTokens \}/,
    );
    expect(make('all')).not.toThrow();
  });

  it('sends a bounded request from a 500-message session with a 4,000-token window, storing it whole', async () => {
    const { store, path } = await temps.open();
    const model = toolingModel();
    const agent = new Agent({
      name: 'chat',
      model,
      store,
      tools: [noteTool],
      history: { maxTokens: 4000 },
    });
    for (let n = 0; n < 250; n++) await agent.run(message(n), key);

    const stored = await store.readHistory(key);
    const messages = stored.filter((i) => i.type === 'message');
    expect(messages.length).toBeGreaterThanOrEqual(500);
    expect(tokensOf(stored)).toBeGreaterThan(20_000); // five times the window

    const last = model.calls.at(-1)!;
    // Bounded: within the budget, and far fewer items than the history holds.
    expect(tokensOf(last.items)).toBeLessThanOrEqual(4000);
    expect(tokensOf(last.items)).toBeGreaterThan(3000); // the window is used, not starved
    expect(last.items.length).toBeLessThan(stored.length / 4);
    // Every request stayed within it, and each ended with what the model had to answer.
    for (const call of model.calls) expect(tokensOf(call.items)).toBeLessThanOrEqual(4000);
    expect(lastOf(last)).toEqual({ type: 'message', role: 'user', content: message(249) });
    // The window is the newest part of the history (before the answer to it), in order.
    expect(stored.slice(-last.items.length - 1, -1)).toEqual(last.items);

    // The whole history is still there in a fresh open of the folder.
    await store.close();
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    expect(await reopened.readHistory(key)).toEqual(stored);
  });

  it('counts with a pluggable counter, and a counter that returns nonsense interrupts the run with a clear error', async () => {
    const { store } = await temps.open();
    const model = toolingModel();
    const counted: Item['type'][] = [];
    const agent = new Agent({
      name: 'chat',
      model,
      store,
      history: {
        maxTokens: 3,
        countTokens: (item) => {
          counted.push(item.type);
          return 1;
        },
      },
    });
    for (let n = 1; n <= 4; n++) await agent.run(`hello ${n}`, key);
    // Three items at one token each: the newest user message and the two before it.
    expect(model.calls.at(-1)?.items).toEqual([
      { type: 'message', role: 'user', content: 'hello 3' },
      { type: 'message', role: 'assistant', content: 'ok: hello 3', agent: 'chat' },
      { type: 'message', role: 'user', content: 'hello 4' },
    ]);
    expect(counted.length).toBeGreaterThan(0);

    const broken = new Agent({
      name: 'chat',
      model,
      store,
      history: { maxTokens: 3, countTokens: () => Number.NaN },
    });
    const result = await broken.run('hello 5', key);
    expect(result.interruptionReason).toBe('error');
    expect(result.error?.message).toMatch(
      /history\.countTokens must return a finite number >= 0, got NaN/,
    );
  });
});

/** A summarize hook that counts its calls and records what it was given. */
function summarizer() {
  const seen: Item[][] = [];
  const contexts: SummarizeContext[] = [];
  const summarize = (items: Item[], context: SummarizeContext): Promise<string> => {
    seen.push(items);
    contexts.push(context);
    return Promise.resolve(`summary #${seen.length} of ${items.length} items`);
  };
  return { seen, contexts, summarize };
}

describe('a summarizing window', () => {
  const line = (n: number) => `line ${n} ${'x'.repeat(200)}`; // about 56 tokens each

  it('summarizes once, journals the summary in the history, and a fresh process reads it back instead of calling the hook again', async () => {
    const { store, path } = await temps.open();
    const first = summarizer();
    const history = (summarize: typeof first.summarize): HistoryStrategy => ({
      maxTokens: 600,
      keepTokens: 200,
      summarize,
    });
    const model = new ScriptedModel(
      (request): ScriptedResponse => {
        const last = lastOf(request);
        if (last?.type === 'message' && last.content === 'now do it') {
          return { toolCalls: [{ name: 'danger', arguments: {} }] };
        }
        return { text: last?.type === 'tool_result' ? 'done' : 'noted' };
      },
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'chat',
      model,
      store,
      tools: [dangerTool],
      history: history(first.summarize),
    });
    for (let n = 0; n < 8; n++) await agent.run(line(n), key); // 16 items, under 600 tokens
    expect(first.seen).toHaveLength(0);
    const before = await store.readHistory(key);

    for (let n = 8; n < 12; n++) await agent.run(line(n), key); // over: summarized once
    expect(first.seen).toHaveLength(1);
    const paused = await agent.run('now do it', key); // pauses for approval
    expect(paused.interruptionReason).toBe('approval');
    expect(first.seen).toHaveLength(1);
    expect(first.contexts[0]?.runContext.sessionId).toBe(key.sessionId);

    // The summary is an item of the history; the items it covers are all still there.
    const stored = await store.readHistory(key);
    expect(stored.slice(0, before.length)).toEqual(before);
    const summaries = stored.filter((i) => i.type === 'summary');
    expect(summaries).toEqual([
      {
        type: 'summary',
        content: `summary #1 of ${first.seen[0]!.length} items`,
        upTo: expect.any(Number) as number,
      },
    ]);
    const upTo = summaries[0]!.type === 'summary' ? summaries[0]!.upTo : -1;
    expect(first.seen[0]).toEqual(stored.slice(0, upTo));
    const summarizedRequest = model.calls.at(-1)!;
    expect(summarizedRequest.items[0]).toEqual({
      type: 'message',
      role: 'user',
      content: `Summary of the earlier conversation:\nsummary #1 of ${upTo} items`,
    });

    // A fresh process: a new store open, a new agent, a new hook. Nothing is summarized again.
    await store.close();
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    const second = summarizer();
    const again = new ScriptedModel([{ text: 'finished' }], { recordCalls: true });
    const resumed = new Agent({
      name: 'chat',
      model: again,
      store: reopened,
      tools: [dangerTool],
      history: history(second.summarize),
    });
    paused.state.approve(paused.interruptions[0]!.callId);
    const done = await resumed.resume(paused.state);
    expect(done.output).toBe('finished');
    expect(second.seen).toHaveLength(0);
    expect(again.calls[0]?.items[0]).toEqual(summarizedRequest.items[0]);
    expect(lastOf(again.calls[0])).toMatchObject({ type: 'tool_result', name: 'danger' });
    expect(tokensOf(again.calls[0]!.items)).toBeLessThanOrEqual(600);
    // The stored history is whole: everything said, plus the one summary.
    const after = await reopened.readHistory(key);
    expect(after.slice(0, stored.length)).toEqual(stored);
    expect(after.filter((i) => i.type === 'summary')).toHaveLength(1);
  });

  it('hands the earlier summary to the next one, and keeps a summary made before a failed model call', async () => {
    const { store } = await temps.open();
    const hook = summarizer();
    let failNext = false;
    const model = new ScriptedModel(
      (): ScriptedResponse => {
        if (failNext) {
          failNext = false;
          return { error: 'the model is down' };
        }
        return { text: 'noted' };
      },
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'chat',
      model,
      store,
      history: { maxTokens: 600, keepTokens: 200, summarize: hook.summarize },
    });
    let n = 0;
    while (hook.seen.length === 0 && n < 50) await agent.run(line(n++), key);
    expect(hook.seen).toHaveLength(1);
    // Talk until the next summary is due; the model call after it fails.
    for (; n < 100;) {
      const history = await store.readHistory(key);
      const summaryAt = history.findIndex((i) => i.type === 'summary');
      if (tokensOf(history.slice(summaryAt)) > 480) break;
      await agent.run(line(n++), key);
    }
    failNext = true;
    const failed = await agent.run(line(n), key);
    expect(failed.interruptionReason).toBe('error');
    expect(hook.seen).toHaveLength(2);
    expect(hook.seen[1]?.[0]).toEqual({
      type: 'summary',
      content: `summary #1 of ${hook.seen[0]!.length} items`,
      upTo: expect.any(Number) as number,
    });
    const resumed = await agent.resume(failed.state);
    expect(resumed.output).toBe('noted');
    expect(hook.seen).toHaveLength(2); // read back from the history, not made again
    expect((await store.readHistory(key)).filter((i) => i.type === 'summary')).toHaveLength(2);
  });
});
