import { roundUsd } from '../validation/usd-amount.js';
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

const perMillion = (
  inputPerMillion: number,
  cachedInputPerMillion: number | undefined,
  outputPerMillion: number,
): ModelPrice =>
  cachedInputPerMillion === undefined
    ? { inputPerMillion, outputPerMillion }
    : { inputPerMillion, cachedInputPerMillion, outputPerMillion };

/**
 * Public list prices of OpenAI models in USD per 1M tokens (standard tier, short context),
 * as published in mid 2026: input, cached input, output. Dated snapshots match by prefix
 * (`gpt-5.4-mini-2026-03-17` uses `gpt-5.4-mini`). Prices change: check them against
 * https://openai.com/api/pricing and add or override entries with {@link withPrices}.
 */
export const defaultPrices: PriceTable = Object.freeze({
  'gpt-5.5': perMillion(5, 0.5, 30),
  'gpt-5.5-pro': perMillion(30, undefined, 180),
  'gpt-5.4': perMillion(2.5, 0.25, 15),
  'gpt-5.4-mini': perMillion(0.75, 0.075, 4.5),
  'gpt-5.4-nano': perMillion(0.2, 0.02, 1.25),
  'gpt-5.4-pro': perMillion(30, undefined, 180),
  'gpt-5.2': perMillion(1.75, 0.175, 14),
  'gpt-5.2-pro': perMillion(21, undefined, 168),
  'gpt-5.1': perMillion(1.25, 0.125, 10),
  'gpt-5': perMillion(1.25, 0.125, 10),
  'gpt-5-mini': perMillion(0.25, 0.025, 2),
  'gpt-5-nano': perMillion(0.05, 0.005, 0.4),
  'gpt-5-pro': perMillion(15, undefined, 120),
  'gpt-4.1': perMillion(2, 0.5, 8),
  'gpt-4.1-mini': perMillion(0.4, 0.1, 1.6),
  'gpt-4.1-nano': perMillion(0.1, 0.025, 0.4),
  'gpt-4o': perMillion(2.5, 1.25, 10),
  'gpt-4o-2024-05-13': perMillion(5, undefined, 15),
  'gpt-4o-mini': perMillion(0.15, 0.075, 0.6),
  o3: perMillion(2, 0.5, 8),
  'o3-pro': perMillion(20, undefined, 80),
  'o3-mini': perMillion(1.1, 0.55, 4.4),
  'o4-mini': perMillion(1.1, 0.275, 4.4),
  o1: perMillion(15, 7.5, 60),
});

/**
 * List prices of OpenAI's embedding models in USD per 1M input tokens (standard tier, mid 2026;
 * embeddings have no output tokens). `openaiEmbedder` finds its model's price here the way
 * {@link findPrice} finds a chat model's (exact name, else the longest prefix).
 */
export const defaultEmbeddingPrices: PriceTable = Object.freeze({
  'text-embedding-3-small': perMillion(0.02, undefined, 0),
  'text-embedding-3-large': perMillion(0.13, undefined, 0),
  'text-embedding-ada-002': perMillion(0.1, undefined, 0),
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
 * The price of answers named `model`: `own` (the model's own price, see `Model.price`), else
 * the table's entry; `undefined` when neither knows it. A model given a price costs that,
 * whatever its name (a `ScriptedModel` named `gpt-4o` costs nothing).
 */
export function priceOf(
  model: string,
  table: PriceTable = defaultPrices,
  own?: ModelPrice,
): ModelPrice | undefined {
  return own ?? findPrice(model, table);
}

/**
 * Cost in USD of one model call, to twelve significant digits (no float noise). `usage.inputTokens`
 * includes the cached tokens, which are billed at `cachedInputPerMillion` when the price gives
 * one. A model with its own price (`own`) costs that; else the table's entry; without either
 * its cost is unknown: `undefined`.
 */
export function costUsd(
  model: string,
  usage: ModelUsage,
  table: PriceTable = defaultPrices,
  own?: ModelPrice,
): number | undefined {
  const price = priceOf(model, table, own);
  if (!price) return undefined;
  const input = Math.max(0, usage.inputTokens);
  const cached = Math.min(input, Math.max(0, usage.cachedTokens));
  const output = Math.max(0, usage.outputTokens);
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return roundUsd(
    ((input - cached) * price.inputPerMillion +
      cached * cachedPrice +
      output * price.outputPerMillion) /
      1_000_000,
  );
}
