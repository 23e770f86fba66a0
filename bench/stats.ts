/** Summary statistics of repeated measurements. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  /** Every value, in run order. */
  values: number[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The value at quantile `q` (0 to 1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : Number.NaN,
    max: values.length ? Math.max(...values) : Number.NaN,
    values: [...values],
  };
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** Summarizes one field over several runs' results. */
export function summarizeBy<T>(runs: readonly T[], pick: (run: T) => number): Summary {
  return summarize(runs.map(pick));
}

/** The first and last `fraction` of a series (at least one element each). */
export function headTail<T>(series: readonly T[], fraction = 0.1): { head: T[]; tail: T[] } {
  const n = Math.max(1, Math.round(series.length * fraction));
  return { head: series.slice(0, n), tail: series.slice(series.length - n) };
}

/** Milliseconds since an arbitrary origin, high resolution. */
export const now = (): number => performance.now();

/** Samples the resident set size while a workload runs; `stop` returns the peak in bytes. */
export class RssSampler {
  /** The RSS when sampling started. */
  readonly start = process.memoryUsage.rss();
  private peak = this.start;
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 10) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

export const MB = 1024 * 1024;
