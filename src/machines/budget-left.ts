import type { z } from 'zod';
import type { RunUsage } from './run-usage.js';
import type { Budget } from './schemas/run-schemas.js';

/** Limits left for this run (already net of what the session and user used). */
export type RunBudget = z.output<typeof Budget>;

/** A run's limits and what it used so far: what its budget checks read. */
interface Spent {
  budget: RunBudget;
  usage: RunUsage;
  turn: number;
}

/** Whether the run used up its turns, tokens or cost: it stops before its next model call. */
export function budgetExhausted({ budget, usage, turn }: Spent): boolean {
  return (
    (budget.maxTurns !== undefined && turn >= budget.maxTurns) ||
    (budget.maxTokens !== undefined &&
      usage.inputTokens + usage.outputTokens >= budget.maxTokens) ||
    (budget.maxCostUsd !== undefined && (usage.costUsd ?? 0) >= budget.maxCostUsd)
  );
}

/** What a run may still spend on its next model call (absent: no limit). */
export interface BudgetLeft {
  /** Input plus output tokens: the next call's output-token limit. */
  tokens?: number | undefined;
  costUsd?: number | undefined;
}

/**
 * What is left of the run's token and cost budget after what the run used so far; `undefined`
 * when the run has neither limit.
 */
export function budgetLeft({ budget, usage }: Omit<Spent, 'turn'>): BudgetLeft | undefined {
  if (budget.maxTokens === undefined && budget.maxCostUsd === undefined) return undefined;
  const left: BudgetLeft = {};
  if (budget.maxTokens !== undefined) {
    left.tokens = Math.max(0, budget.maxTokens - usage.inputTokens - usage.outputTokens);
  }
  if (budget.maxCostUsd !== undefined) {
    left.costUsd = Math.max(0, budget.maxCostUsd - (usage.costUsd ?? 0));
  }
  return left;
}
