import type { Item, SummaryItem } from '../items/item.js';
import type { HistoryStrategy } from './history-strategy.js';
import { estimateTokens } from './token-estimate.js';

/** Read access to a session's history by position (the session log, or an array). */
export interface HistorySource {
  readonly length: number;
  at(position: number): Item | undefined;
}

/**
 * Where in the history the items a request sends are (a few numbers, whatever the history's
 * length): the summary at `summary` (if any), the user message at `pinned` (if any), then the
 * items in `[start, end)` with summaries left out.
 */
export interface WindowRange {
  start: number;
  end: number;
  pinned?: number | undefined;
  summary?: number | undefined;
}

/** What a context window sends, and what it wants summarized first. */
export interface WindowPlan {
  /** The items to send, oldest first; an earlier summary, if any, comes first. */
  items: Item[];
  /** Where `items` are in the history. */
  range: WindowRange;
  /**
   * Set when items fall out of a window with `summarize`: summarize `items` (an earlier summary
   * first, when there is one), store the summary with `upTo`, and send it before `kept` (at
   * `keptRange`).
   */
  summarize?: { items: Item[]; upTo: number; kept: Item[]; keptRange: WindowRange } | undefined;
}

type Cost = (item: Item) => number;

/**
 * Which items of `history` (from `from`, where the model starts reading) a model request
 * carries under `strategy`. Reads only the tail it keeps (plus the way back to the newest user
 * message and summary), so the work per request is about the window, not the history.
 */
export function planWindow(
  history: HistorySource,
  from: number,
  strategy: HistoryStrategy,
): WindowPlan {
  const end = history.length;
  if (strategy === 'all')
    return { items: collect(history, from, end), range: { start: from, end } };
  if ('lastItems' in strategy) {
    const cut = tailCut(history, from, end, () => 1, strategy.lastItems);
    return { items: withPinned(history, cut, []), range: rangeOf(cut) };
  }
  const cost = checkedCounter(strategy.countTokens ?? estimateTokens);
  if (!strategy.summarize) {
    const cut = tailCut(history, from, end, cost, strategy.maxTokens);
    return { items: withPinned(history, cut, []), range: rangeOf(cut) };
  }
  const found = latestSummary(history, from, end);
  const summary = found?.item;
  const base = Math.max(from, Math.min(summary?.upTo ?? from, end));
  const head = summary ? [summary] : [];
  const summaryCost = summary ? cost(summary) : 0;
  const whole = tailCut(history, base, end, cost, strategy.maxTokens - summaryCost);
  const sent = { items: withPinned(history, whole, head), range: rangeOf(whole, found?.at) };
  if (whole.complete) return sent;
  const keep = tailCut(history, base, end, cost, strategy.keepTokens ?? strategy.maxTokens / 2);
  if (keep.start <= base) return sent;
  return {
    ...sent,
    summarize: {
      items: [...head, ...collect(history, base, keep.start)],
      upTo: keep.start,
      kept: withPinned(history, keep, []),
      keptRange: rangeOf(keep),
    },
  };
}

/** Where a cut's items are (see `withPinned`), after the summary at `summary`. */
function rangeOf(cut: Cut, summary?: number): WindowRange {
  return {
    start: cut.start,
    end: cut.end,
    ...(cut.pinned >= 0 && cut.pinned < cut.start ? { pinned: cut.pinned } : {}),
    ...(summary === undefined ? {} : { summary }),
  };
}

/** Where a tail starts, and the newest user message kept in front of it when it starts later. */
interface Cut {
  start: number;
  end: number;
  pinned: number;
  /** The whole range fitted: nothing was left out. */
  complete: boolean;
}

/**
 * The earliest start in [from, end] whose tail fits `limit` and does not separate a tool result
 * from its call (results are matched to the nearest earlier call with their id, so repeated ids
 * pair up as they were made). The newest user message's cost is reserved: it is always sent.
 * The newest whole unit (the last item with the calls its results need) is kept even when it
 * alone is over the limit. Summary items cost nothing here and are never sent from the tail.
 */
function tailCut(
  history: HistorySource,
  from: number,
  end: number,
  cost: Cost,
  limit: number,
): Cut {
  const pinned = latestUserMessage(history, from, end);
  const pinnedItem = pinned < 0 ? undefined : history.at(pinned);
  let total = pinnedItem ? cost(pinnedItem) : 0;
  const awaiting = new Map<string, number>(); // results whose call is further back
  let open = 0;
  let start = end;
  for (let i = end - 1; i >= from; i--) {
    const item = history.at(i);
    if (!item || item.type === 'summary') continue;
    if (i !== pinned) total += cost(item);
    if (total > limit && start < end) return { start, end, pinned, complete: false };
    if (item.type === 'tool_result') {
      awaiting.set(item.callId, (awaiting.get(item.callId) ?? 0) + 1);
      open++;
    } else if (item.type === 'tool_call') {
      const waiting = awaiting.get(item.callId) ?? 0;
      if (waiting > 0) {
        awaiting.set(item.callId, waiting - 1);
        open--;
      }
    }
    if (open === 0) start = i;
  }
  // No safe start (a result whose call is before `from`): send the range whole.
  if (open > 0) start = from;
  return { start, end, pinned, complete: total <= limit || start === from };
}

/** The tail of a cut, after `head` and the pinned user message when the tail leaves it out. */
function withPinned(history: HistorySource, cut: Cut, head: Item[]): Item[] {
  const pinned = cut.pinned >= 0 && cut.pinned < cut.start ? history.at(cut.pinned) : undefined;
  return [...head, ...(pinned ? [pinned] : []), ...collect(history, cut.start, cut.end)];
}

/** Items in [from, end), summaries left out. */
function collect(history: HistorySource, from: number, end: number): Item[] {
  const items: Item[] = [];
  for (let i = from; i < end; i++) {
    const item = history.at(i);
    if (item && item.type !== 'summary') items.push(item);
  }
  return items;
}

function latestUserMessage(history: HistorySource, from: number, end: number): number {
  for (let i = end - 1; i >= from; i--) {
    const item = history.at(i);
    if (item?.type === 'message' && item.role === 'user') return i;
  }
  return -1;
}

function latestSummary(
  history: HistorySource,
  from: number,
  end: number,
): { item: SummaryItem; at: number } | undefined {
  for (let i = end - 1; i >= from; i--) {
    const item = history.at(i);
    if (item?.type === 'summary') return { item, at: i };
  }
  return undefined;
}

/** A counter whose answers are checked: a wrong one is a clear error, not a silent bad window. */
function checkedCounter(count: Cost): Cost {
  return (item) => {
    const tokens = count(item);
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      throw new TypeError(
        `history.countTokens must return a finite number >= 0, got ${String(tokens)} for a ${item.type} item`,
      );
    }
    return tokens;
  };
}
