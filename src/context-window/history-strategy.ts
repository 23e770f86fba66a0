import type { RunContext } from '../core/run-context.js';
import type { Item } from '../items/item.js';
import type { Model } from '../models/model.js';
import {
  OptionChecker,
  describeValue,
  isObject,
  optionNames,
} from '../validation/option-checks.js';

/** What a `summarize` hook receives besides the items to summarize. */
export interface SummarizeContext {
  /** The run's context (also readable through `getRunContext()` inside the hook). */
  runContext: RunContext;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** The agent's model, for a hook that asks it for the summary. */
  model: Model;
}

/**
 * A context window that keeps the newest items within a token budget.
 * @example { maxTokens: 4000 }
 * @example { maxTokens: 4000, countTokens: (item) => myTokenizer(JSON.stringify(item)).length }
 */
export interface TokenWindow {
  /** Most tokens of history items sent to the model (instructions and tool specs not counted). */
  maxTokens: number;
  /**
   * Counts one item's tokens: a finite number >= 0.
   * @default `estimateTokens`: characters / 4 plus 4 per item, 1,000 per image or file by id,
   *   and inline files by their byte size / 4
   */
  countTokens?: ((item: Item) => number) | undefined;
  /**
   * Replaces the items that fall out of the window with a summary, instead of dropping them.
   * Called with those items (an earlier summary first, when there is one); the summary is
   * stored as a `summary` item in the history and never computed again for the same cut.
   * @example async (items, { model }) => (await model.generate({ items: [...items, ask], tools: [] })).text ?? ''
   */
  summarize?: ((items: Item[], context: SummarizeContext) => string | Promise<string>) | undefined;
  /**
   * Tokens of the newest items kept word for word when a summary is made (the rest is summarized).
   * Only with `summarize`.
   * @default half of `maxTokens`
   */
  keepTokens?: number | undefined;
}

/** A context window of the newest `lastItems` history items. @example { lastItems: 40 } */
export interface ItemWindow {
  lastItems: number;
}

/**
 * Which part of the stored history each model request carries. The stored history always stays
 * whole; a cut never separates a tool call from its result and always keeps the newest user
 * message. `'all'` sends everything from the last `clearSession`.
 * @default 'all'
 */
export type HistoryStrategy = 'all' | ItemWindow | TokenWindow;

const TOKEN_WINDOW_NAMES = optionNames<TokenWindow>({
  maxTokens: true,
  countTokens: true,
  summarize: true,
  keepTokens: true,
});
const ITEM_WINDOW_NAMES = optionNames<ItemWindow>({ lastItems: true });

/** Checks a `history` option; throws a `TypeError` naming the call and the mistake. */
export function checkHistoryStrategy(call: string, value: unknown, path = 'history'): void {
  if (value === undefined || value === 'all') return;
  if (!isObject(value)) {
    throw new TypeError(
      `${call}: option "${path}" must be 'all', { lastItems } or { maxTokens }, got ${describeValue(value)}`,
    );
  }
  if ('lastItems' in value) {
    new OptionChecker(call, value, ITEM_WINDOW_NAMES, path).check(
      'lastItems',
      'a positive integer',
      (v) => Number.isInteger(v) && (v as number) > 0,
      true,
    );
    return;
  }
  new OptionChecker(call, value, TOKEN_WINDOW_NAMES, path)
    .check('maxTokens', 'a positive integer', isPositiveInteger, true)
    .function('countTokens')
    .function('summarize')
    .check('keepTokens', 'a positive integer', isPositiveInteger);
  const { maxTokens, keepTokens, summarize } = value;
  if (keepTokens !== undefined && summarize === undefined) {
    throw new TypeError(`${call}: option "${path}.keepTokens" needs "${path}.summarize"`);
  }
  if (typeof keepTokens === 'number' && keepTokens >= (maxTokens as number)) {
    throw new TypeError(`${call}: option "${path}.keepTokens" must be less than maxTokens`);
  }
}

const isPositiveInteger = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;
