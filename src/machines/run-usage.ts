import { addUsd } from '../validation/usd-amount.js';

/** Tokens and cost of a run so far. Plain JSON. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /**
   * Output tokens spent reasoning (part of `outputTokens`); present once a model call reported
   * them.
   */
  reasoningTokens?: number | undefined;
  /** USD; `undefined` once a model call had no known price (the cost is then unknown). */
  costUsd: number | undefined;
}

export const zeroUsage = (): RunUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  costUsd: 0,
});

export function addUsage(a: RunUsage, b: RunUsage): RunUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(a.reasoningTokens === undefined && b.reasoningTokens === undefined
      ? {}
      : { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) }),
    costUsd:
      a.costUsd === undefined || b.costUsd === undefined ? undefined : addUsd(a.costUsd, b.costUsd),
  };
}
