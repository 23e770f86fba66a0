import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import {
  costUsd,
  defaultPrices,
  findPrice,
  priceOf,
  withPrices,
} from '../../src/models/pricing.js';
import { addUsd, roundUsd, subtractUsd } from '../../src/validation/usd-amount.js';

const usage = (inputTokens: number, outputTokens: number, cachedTokens = 0) => ({
  inputTokens,
  outputTokens,
  cachedTokens,
});

describe('pricing', () => {
  it('has prices for the listed OpenAI models', () => {
    for (const name of [
      'gpt-5.5',
      'gpt-5.4',
      'gpt-5.4-mini',
      'gpt-5.4-nano',
      'gpt-5.2',
      'gpt-5.1',
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o3',
      'o4-mini',
    ]) {
      const price = defaultPrices[name];
      expect(price, name).toBeDefined();
      expect(price?.inputPerMillion).toBeGreaterThan(0);
      expect(price?.outputPerMillion).toBeGreaterThan(price?.inputPerMillion ?? Infinity);
    }
  });

  it('computes the cost of input and output tokens', () => {
    // gpt-4o: $2.50 in, $10 out per million
    expect(costUsd('gpt-4o', usage(1_000_000, 0))).toBeCloseTo(2.5, 10);
    expect(costUsd('gpt-4o', usage(0, 1_000_000))).toBeCloseTo(10, 10);
    expect(costUsd('gpt-4o', usage(2_000, 500))).toBeCloseTo(0.005 + 0.005, 10);
  });

  it('bills cached input tokens at the cached price', () => {
    // gpt-4o-mini: $0.15 in, $0.075 cached, $0.60 out
    const cost = costUsd('gpt-4o-mini', usage(1_000_000, 0, 400_000));
    expect(cost).toBeCloseTo(0.6 * 0.15 + 0.4 * 0.075, 10);
  });

  it('bills cached tokens at the input price when the table has no cached price', () => {
    const table = { local: { inputPerMillion: 1, outputPerMillion: 2 } };
    expect(costUsd('local', usage(1_000_000, 1_000_000, 500_000), table)).toBeCloseTo(3, 10);
  });

  it('never bills more cached tokens than input tokens', () => {
    const table = { m: { inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: 0 } };
    expect(costUsd('m', usage(100, 0, 1_000), table)).toBe(0);
  });

  it('returns undefined (cost unknown) for unknown models, unless the model has its own price', () => {
    expect(costUsd('my-local-llama', usage(1_000, 1_000))).toBeUndefined();
    expect(costUsd('', usage(1_000, 1_000))).toBeUndefined();
    const own = { inputPerMillion: 1, outputPerMillion: 2 };
    expect(costUsd('my-local-llama', usage(1_000_000, 1_000_000), defaultPrices, own)).toBe(3);
  });

  it("a model's own price wins over the table's entry for its name", () => {
    const own = { inputPerMillion: 100, outputPerMillion: 100 };
    expect(costUsd('gpt-4o-mini', usage(244, 32), defaultPrices, own)).toBe(0.0276);
    expect(costUsd('gpt-4o', usage(1_000_000, 0), defaultPrices, own)).toBe(100);
    expect(priceOf('gpt-4o', defaultPrices, own)).toBe(own);
    expect(priceOf('gpt-4o', defaultPrices)).toBe(defaultPrices['gpt-4o']);
  });

  it('costs carry no float noise: 244 in and 32 out on gpt-4o-mini are $0.0000558', () => {
    const cost = costUsd('gpt-4o-mini', usage(244, 32));
    expect(String(cost)).toBe('0.0000558'); // not 0.000055799999999999994
    expect(String(costUsd('gpt-4o', usage(1, 1)))).toBe('0.0000125');
    // Sums of costs too (run, session and user totals add them up).
    expect(String(addUsd(0.1, 0.2))).toBe('0.3');
    expect(String(addUsd(0.0000558, 0.0000558, 0.0000558))).toBe('0.0001674');
    expect(String(subtractUsd(0.3, 0.1))).toBe('0.2');
    // Exact enough for budgets: twelve significant digits, whatever the amount.
    expect(roundUsd(1234.5678901234567)).toBe(1234.56789012);
    expect(roundUsd(0)).toBe(0);
  });

  it('matches dated model names by the longest prefix', () => {
    expect(findPrice('gpt-4o-2024-08-06')).toBe(defaultPrices['gpt-4o']);
    expect(findPrice('gpt-4o-mini-2024-07-18')).toBe(defaultPrices['gpt-4o-mini']);
    expect(findPrice('gpt-4.1-nano-2025-04-14')).toBe(defaultPrices['gpt-4.1-nano']);
    expect(findPrice('gpt-4.1-2025-04-14')).toBe(defaultPrices['gpt-4.1']);
    expect(costUsd('gpt-4o-2024-08-06', usage(1_000_000, 0))).toBeCloseTo(2.5, 10);
  });

  it('keeps the GPT-5 generations apart: a point release is not a dated gpt-5', () => {
    expect(findPrice('gpt-5.4-mini-2026-03-17')).toBe(defaultPrices['gpt-5.4-mini']);
    expect(findPrice('gpt-5-mini-2025-08-07')).toBe(defaultPrices['gpt-5-mini']);
    expect(findPrice('gpt-5.3')).toBeUndefined(); // `.` is no boundary: not priced as gpt-5
    expect(findPrice('gpt-4o-2024-05-13')?.inputPerMillion).toBe(5); // the older, dearer snapshot
  });

  it('only matches a prefix at a name boundary', () => {
    const table = { llama3: { inputPerMillion: 1, outputPerMillion: 1 } };
    expect(findPrice('llama3:8b', table)).toBe(table.llama3);
    expect(findPrice('llama3.1:8b', table)).toBeUndefined();
    expect(findPrice('gpt-4oo')).toBeUndefined();
  });

  it('extends and overrides the default table with withPrices', () => {
    const table = withPrices({
      'llama3.1': { inputPerMillion: 0, outputPerMillion: 0 },
      'gpt-4o': { inputPerMillion: 5, outputPerMillion: 15 },
    });
    expect(costUsd('llama3.1:70b', usage(1_000, 1_000), table)).toBe(0);
    expect(costUsd('gpt-4o', usage(1_000_000, 0), table)).toBeCloseTo(5, 10);
    expect(costUsd('o4-mini', usage(1_000_000, 0), table)).toBeCloseTo(1.1, 10);
    // The default table is untouched.
    expect(costUsd('gpt-4o', usage(1_000_000, 0))).toBeCloseTo(2.5, 10);
    expect(Object.isFrozen(defaultPrices)).toBe(true);
  });
});

describe('what runs are charged', () => {
  const temps = new TempStores();
  afterEach(() => temps.cleanupAll());

  it('a ScriptedModel named like a priced model costs nothing; its own price is what it costs', async () => {
    const { store } = await temps.open();
    const free = new Agent({
      name: 'free',
      model: new ScriptedModel([{ text: 'hi', usage: { inputTokens: 244, outputTokens: 32 } }], {
        name: 'gpt-4o',
      }),
      store,
    });
    expect((await free.run('hello', { sessionId: 'free' })).usage.costUsd).toBe(0);

    const three = { text: 'hi', usage: { inputTokens: 244, outputTokens: 32 } };
    const priced = new Agent({
      name: 'priced',
      model: new ScriptedModel([three, three, three], {
        name: 'gpt-4o-mini',
        price: { inputPerMillion: 100, outputPerMillion: 100 },
      }),
      store,
    });
    const key = { sessionId: 'priced', userId: 'alice' };
    expect((await priced.run('one', key)).usage.costUsd).toBe(0.0276);
    await priced.run('two', key);
    await priced.run('three', key);
    const info = await priced.runtimeFor(store).getSessionInfo(key);
    expect(String(info.usage.costUsd)).toBe('0.0828');
    expect(String((await store.userUsage('alice')).costUsd)).toBe('0.0828');
  });

  it('run, session and user totals of a default-priced model carry no float noise', async () => {
    const { store } = await temps.open();
    const answer = { text: 'hi', usage: { inputTokens: 244, outputTokens: 32 } };
    const agent = new Agent({
      name: 'mini',
      model: new ScriptedModel([answer, answer, answer], { name: 'gpt-4o-mini', price: null }),
      store,
    });
    const key = { sessionId: 'mini', userId: 'bob' };
    expect(String((await agent.run('one', key)).usage.costUsd)).toBe('0.0000558');
    await agent.run('two', key);
    await agent.run('three', key);
    const info = await agent.runtimeFor(store).getSessionInfo(key);
    expect(String(info.usage.costUsd)).toBe('0.0001674');
    expect(String((await store.userUsage('bob')).costUsd)).toBe('0.0001674');
  });
});
