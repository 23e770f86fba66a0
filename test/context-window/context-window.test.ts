import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seeded-random.js';
import type { Item } from '../../src/items/item.js';
import { planWindow } from '../../src/context-window/context-window.js';
import type { HistoryStrategy } from '../../src/context-window/history-strategy.js';
import { estimateTokens } from '../../src/context-window/token-estimate.js';

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function prng(seed: number): (n: number) => number {
  const random = mulberry32(seed);
  return (n) => Math.floor(random() * n);
}

const words = (random: (n: number) => number): string => 'word '.repeat(1 + random(60));

/**
 * A history as runs make it: user messages, assistant text, batches of tool calls followed by
 * their results in call order, call ids drawn from a small pool so they repeat across turns
 * (as a windowed ScriptedModel's default ids do), and a trailing batch still waiting for
 * approval now and then.
 */
function randomHistory(random: (n: number) => number): Item[] {
  const items: Item[] = [];
  const turns = 1 + random(40);
  for (let t = 0; t < turns; t++) {
    items.push({ type: 'message', role: 'user', content: words(random) });
    for (let step = random(4); step > 0; step--) {
      if (random(2)) items.push({ type: 'message', role: 'assistant', content: words(random) });
      const ids = Array.from({ length: 1 + random(3) }, (_, i) => `call_${random(4)}_${i}`);
      for (const callId of ids) {
        items.push({
          type: 'tool_call',
          callId,
          name: 'look',
          arguments: `{"q":"${words(random)}"}`,
        });
      }
      if (t === turns - 1 && step === 1 && random(3) === 0) break; // pending approval
      for (const callId of ids) {
        items.push({ type: 'tool_result', callId, name: 'look', output: words(random) });
      }
    }
    if (random(2)) items.push({ type: 'message', role: 'assistant', content: words(random) });
  }
  return items;
}

/** Where each tool result's call is: the nearest earlier call with its id. */
function callPositions(items: Item[]): Map<number, number> {
  const lastCall = new Map<string, number>();
  const calls = new Map<number, number>();
  items.forEach((item, i) => {
    if (item.type === 'tool_call') lastCall.set(item.callId, i);
    if (item.type === 'tool_result') calls.set(i, lastCall.get(item.callId) ?? -1);
  });
  return calls;
}

/**
 * The reference answer, by brute force over every start: the earliest start that splits no
 * pair and fits the limit (the newest user message counted whether or not the tail holds it);
 * when none fits, the newest start that splits no pair.
 */
function expectedStart(items: Item[], cost: (item: Item) => number, limit: number): number {
  const user = items.findLastIndex((i) => i.type === 'message' && i.role === 'user');
  const costFrom = (s: number) =>
    items.slice(s).reduce((sum, item) => sum + cost(item), 0) +
    (user >= 0 && user < s ? cost(items[user]!) : 0);
  const starts = safeStarts(items);
  const fitting = starts.filter((s) => costFrom(s) <= limit);
  return fitting[0] ?? starts.at(-1) ?? 0;
}

/** Every start that leaves no tool result without its call. */
function safeStarts(items: Item[]): number[] {
  const calls = callPositions(items);
  return items.map((_, s) => s).filter((s) => [...calls].every(([r, c]) => r < s || c >= s));
}

function strategyFor(random: (n: number) => number): {
  strategy: HistoryStrategy;
  cost: (item: Item) => number;
  limit: number;
} {
  if (random(2)) {
    const lastItems = 1 + random(25);
    return { strategy: { lastItems }, cost: () => 1, limit: lastItems };
  }
  const maxTokens = 10 + random(600);
  return { strategy: { maxTokens }, cost: estimateTokens, limit: maxTokens };
}

describe('planWindow over many random histories', () => {
  it('never splits a tool call from its result, keeps the newest user message, and fits the limit when it can', () => {
    for (let seed = 1; seed <= 600; seed++) {
      const random = prng(seed);
      const items = randomHistory(random);
      const { strategy, cost, limit } = strategyFor(random);
      const plan = planWindow(items, 0, strategy);
      const sent = plan.items;
      const where = `seed ${seed}, ${JSON.stringify(strategy)}`;
      // Its range (what a model step journals) gives the same items back.
      const { pinned, start: from, end } = plan.range;
      expect([...(pinned === undefined ? [] : [items[pinned]]), ...items.slice(from, end)]).toEqual(
        sent,
      );

      // The window is the newest user message (when the tail leaves it out) and then a tail.
      const start = expectedStart(items, cost, limit);
      const user = items.findLastIndex((i) => i.type === 'message' && i.role === 'user');
      const expected = [...(user < start ? [items[user]!] : []), ...items.slice(start)];
      expect(sent, where).toEqual(expected);

      // No result without its call: each result in the tail has its call in the tail.
      for (const [result, call] of callPositions(items)) {
        if (result >= start) expect(call, where).toBeGreaterThanOrEqual(start);
      }
      expect(sent, where).toContain(items[user]);
      const total = sent.reduce((sum, item) => sum + cost(item), 0);
      // Over the limit only when even the newest unit alone is.
      if (total > limit) expect(start, where).toBe(Math.max(...safeStarts(items)));
    }
  });

  it('sends everything with "all", and leaves summaries out of every window but their own', () => {
    const summary: Item = { type: 'summary', content: 'earlier: hello', upTo: 2 };
    const items: Item[] = [
      { type: 'message', role: 'user', content: 'hello' },
      { type: 'message', role: 'assistant', content: 'hi' },
      summary,
      { type: 'message', role: 'user', content: 'again' },
    ];
    expect(planWindow(items, 0, 'all').items).toEqual([items[0], items[1], items[3]]);
    expect(planWindow(items, 1, { lastItems: 5 }).items).toEqual([items[1], items[3]]);
    const summarized = planWindow(items, 0, { maxTokens: 1000, summarize: () => 'x' });
    expect(summarized).toEqual({
      items: [summary, items[3]],
      range: { start: 3, end: 4, summary: 2 },
    });
  });
});

describe('estimateTokens', () => {
  it('counts characters / 4 plus 4 per item, 1,000 per image or file id, inline files by bytes', () => {
    const text: Item = { type: 'message', role: 'user', content: 'x'.repeat(400) };
    expect(estimateTokens(text)).toBe(104);
    const data = 'A'.repeat(4000); // 3,000 bytes
    const parts: Item = {
      type: 'message',
      role: 'user',
      content: [
        { type: 'text', text: 'x'.repeat(40) },
        { type: 'image', data, mediaType: 'image/png' },
        { type: 'image', url: 'https://example.test/a.png' },
        { type: 'file', data, mediaType: 'application/pdf', filename: 'a.pdf' },
        { type: 'file', fileId: 'file-1' },
      ],
    };
    expect(estimateTokens(parts)).toBe(Math.ceil((40 + 3000) / 4) + 4 + 3 * 1000);
    const call: Item = { type: 'tool_call', callId: 'c', name: 'look', arguments: '{"q":1234}' };
    expect(estimateTokens(call)).toBe(Math.ceil(14 / 4) + 4);
  });
});
