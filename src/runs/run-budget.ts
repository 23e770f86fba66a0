import type { RunBudget } from '../machines/budget-left.js';
import type { Budget } from '../machines/session-types.js';
import type { UsageTotals } from '../persistence/session-store.js';

function left(limit: number | undefined, used: number): number | undefined {
  return limit === undefined ? undefined : Math.max(0, limit - used);
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function remaining(limit: Budget | undefined, used: UsageTotals): RunBudget {
  return {
    maxTurns: left(limit?.maxTurns, used.turns),
    maxTokens: left(limit?.maxTokens, used.inputTokens + used.outputTokens),
    maxCostUsd: left(limit?.maxCostUsd, used.costUsd),
  };
}

/**
 * What a run may still spend: the tighter of the session's budget net of the session's
 * totals and the user's budget net of the user's totals across sessions.
 */
export function runBudget(
  session: { budget: Budget; used: UsageTotals },
  user: { budget: Budget | undefined; used: UsageTotals },
): RunBudget {
  const s = remaining(session.budget, session.used);
  const u = remaining(user.budget, user.used);
  return {
    maxTurns: min(s.maxTurns, u.maxTurns),
    maxTokens: min(s.maxTokens, u.maxTokens),
    maxCostUsd: min(s.maxCostUsd, u.maxCostUsd),
  };
}
