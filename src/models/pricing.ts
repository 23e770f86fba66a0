import type { ModelUsage } from './model.js';

/** Prices of one model in USD per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Price of cached input tokens; when absent they cost `inputPerMillion`. */
  cachedInputPerMillion?: number | undefined;
}

/** Model name (or name prefix) -> prices. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Public list prices (USD per 1M tokens, standard tier) of a few OpenAI models. Check them
 * against https://openai.com/api/pricing before relying on them; extend with {@link withPrices}.
 */
export const defaultPrices: PriceTable = Object.freeze({
  'gpt-4o': { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 },
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, cachedInputPerMillion: 0.025, outputPerMillion: 0.4 },
  'o4-mini': { inputPerMillion: 1.1, cachedInputPerMillion: 0.275, outputPerMillion: 4.4 },
});

/** A copy of `base` (the default prices unless given) with `extra` added or overriding. */
export function withPrices(
  extra: Record<string, ModelPrice>,
  base: PriceTable = defaultPrices,
): PriceTable {
  return Object.freeze({ ...base, ...extra });
}

/** Characters that may follow a table name for it to match a longer model name. */
const PREFIX_BOUNDARY = new Set(['-', ':', '@']);

/**
 * The price entry for `model`: an exact match, else the longest table name that is a prefix of
 * `model` followed by `-`, `:` or `@` (so `gpt-4o-2024-08-06` finds `gpt-4o` and
 * `gpt-4o-mini-2024-07-18` finds `gpt-4o-mini`).
 */
export function findPrice(
  model: string,
  table: PriceTable = defaultPrices,
): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    if (name.length === 0 || name.length >= model.length || !model.startsWith(name)) continue;
    if (!PREFIX_BOUNDARY.has(model.charAt(name.length))) continue;
    if (best === undefined || name.length > best.length) best = name;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * Cost in USD of one model call. `usage.inputTokens` includes the cached tokens, which are
 * billed at `cachedInputPerMillion` when the table gives one. Unknown models cost 0.
 */
export function costUsd(
  model: string,
  usage: ModelUsage,
  table: PriceTable = defaultPrices,
): number {
  const price = findPrice(model, table);
  if (!price) return 0;
  const input = Math.max(0, usage.inputTokens);
  const cached = Math.min(input, Math.max(0, usage.cachedTokens));
  const output = Math.max(0, usage.outputTokens);
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return (
    ((input - cached) * price.inputPerMillion +
      cached * cachedPrice +
      output * price.outputPerMillion) /
    1_000_000
  );
}
