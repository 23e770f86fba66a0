import { withRunContext } from '../core/run-context-storage.js';
import type { Item, SummaryItem } from '../items/item.js';
import { summaryMessage } from '../items/summary-message.js';
import { planWindow, type WindowRange } from '../context-window/context-window.js';
import type { HistoryStrategy } from '../context-window/history-strategy.js';
import type { Model } from '../models/model.js';
import type { RunContext } from '../core/run-context.js';
import type { SessionLog } from './session-log.js';

/** What a session run's model request reads of the history. */
export interface RequestItemsDeps {
  log: SessionLog;
  /** Where the model starts reading the history (moved by `clearSession`). */
  historyFrom(): number;
  /** The session agent's context window: which history items each model request carries. */
  history?: HistoryStrategy | undefined;
  /** The model `history.summarize` is handed (the session agent's). */
  historyModel: Model;
  contextFor(runId: string): RunContext;
}

/**
 * The history items of one model request, through the agent's context window. When the window
 * summarizes, the summary is appended to the history as a `summary` item: it is committed in
 * the same atomic save as this model step's answer, and later requests (in this process or
 * after a restore) read it from the history instead of calling `summarize` again. Only a crash
 * while this step is in flight can make it run again, as for the model call itself
 * (invariant 1). Summaries reach the model as user messages (see `summaryMessage`).
 */
export async function requestItems(
  deps: RequestItemsDeps,
  runId: string,
  signal: AbortSignal,
): Promise<{ items: Item[]; range: WindowRange }> {
  const strategy = deps.history ?? 'all';
  const plan = planWindow(deps.log, deps.historyFrom(), strategy);
  const hook = strategy === 'all' || !('summarize' in strategy) ? undefined : strategy.summarize;
  // 'all' leaves summaries out: its items go as they are, without a second whole-history copy.
  if (strategy === 'all') return plan;
  if (!plan.summarize || !hook) return { items: plan.items.map(asMessage), range: plan.range };
  const runContext = deps.contextFor(runId);
  const { items, upTo, kept, keptRange } = plan.summarize;
  const content = await withRunContext(runContext, () =>
    hook(items, { runContext, signal, model: deps.historyModel }),
  );
  signal.throwIfAborted();
  if (typeof content !== 'string' || content.length === 0) {
    throw new TypeError(
      `history.summarize must resolve to a non-empty string, got ${typeof content === 'string' ? 'an empty string' : typeof content}`,
    );
  }
  const summary: SummaryItem = { type: 'summary', content, upTo };
  const at = deps.log.length;
  deps.log.append([summary]);
  return { items: [summary, ...kept].map(asMessage), range: { ...keptRange, summary: at } };
}

const asMessage = (item: Item): Item => (item.type === 'summary' ? summaryMessage(item) : item);
