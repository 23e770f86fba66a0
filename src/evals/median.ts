/**
 * The value at quantile `q` (0 to 1) of `values`, by the nearest rank (`q = 0.5`: the median,
 * the lower middle of an even count); 0 for none.
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** The median of `values` (the lower middle of an even count); 0 for none. */
export const median = (values: readonly number[]): number => quantile(values, 0.5);
