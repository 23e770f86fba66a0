import type { UsageTotals } from '../persistence/session-store.js';

/** The usage an agent actor's output reports (`AgentActorOutput.usage`, `turns`), if any. */
export function usageOfAgentOutput(output: unknown): UsageTotals | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { usage, turns } = output as { usage?: Record<string, unknown>; turns?: unknown };
  if (typeof usage !== 'object' || usage === null) return undefined;
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return {
    turns: number(turns),
    inputTokens: number(usage.inputTokens),
    outputTokens: number(usage.outputTokens),
    costUsd: number(usage.costUsd),
  };
}

/** `a + b`, field by field. */
export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    turns: a.turns + b.turns,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
