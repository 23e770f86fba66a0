import { describe, expect, it } from 'vitest';
import { costUsd, defaultPrices, findPrice, withPrices } from '../src/models/pricing.js';

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
    // the table wins over the model's own price
    expect(costUsd('gpt-4o', usage(1_000_000, 0), defaultPrices, own)).toBeCloseTo(2.5, 10);
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
