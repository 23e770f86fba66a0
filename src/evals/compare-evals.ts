import { InvalidEvalReportError } from '../errors/eval-errors.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { addUsd, roundUsd } from '../validation/usd-amount.js';
import { EvalReport, type EvalRowResult } from './eval-report.js';
import { median } from './median.js';

/** What a candidate may do for `compareEvals` to pass it. Each is checked only when given. */
export interface EvalThresholds {
  /** Most rows that passed in the baseline and fail (or error) in the candidate. */
  maxRegressedRows?: number | undefined;
  /**
   * Lowest change of each scorer's mean score (over the rows of both): `-0.05` allows a drop of
   * 0.05, `0` allows none.
   */
  minScoreDelta?: number | undefined;
  /** Most relative increase of the rows' cost: `0.2` allows 20% more. */
  maxCostIncrease?: number | undefined;
  /** Most relative increase of the rows' median latency: `0.5` allows 50% more. */
  maxLatencyIncrease?: number | undefined;
}

const THRESHOLD_NAMES = optionNames<EvalThresholds>({
  maxRegressedRows: true,
  minScoreDelta: true,
  maxCostIncrease: true,
  maxLatencyIncrease: true,
});

/** How one row changed from baseline to candidate. */
export type RowChange =
  'regressed' | 'improved' | 'still-passing' | 'still-failing' | 'only-baseline' | 'only-candidate';

/** One row in both reports (or in one), side by side. */
export interface RowComparison {
  rowId: string;
  change: RowChange;
  baseline?: { pass: boolean; status: EvalRowResult['status'] } | undefined;
  candidate?: { pass: boolean; status: EvalRowResult['status'] } | undefined;
  /** By scorer: its score in each, the change, and the candidate's reason. */
  scores: Record<
    string,
    {
      baseline?: number | undefined;
      candidate?: number | undefined;
      delta?: number | undefined;
      reason?: string | undefined;
    }
  >;
  /** The row's agent definition changed differently in the two runs (`definitionChanges`). */
  definitionChanged: boolean;
  definitionChanges?: { baseline: string[]; candidate: string[] } | undefined;
}

/** One side's total of a measure over the rows of both, and the change. */
export interface MeasureDelta {
  baseline: number | undefined;
  candidate: number | undefined;
  delta: number | undefined;
  /** `candidate / baseline - 1` (`Infinity` from 0 to more). */
  increase: number | undefined;
}

/** The comparison of two eval reports of one dataset: per row, per scorer, cost, latency, verdict. */
export interface EvalComparison {
  baseline: { evalId: string; label?: string | undefined; agent: string; dataset: string };
  candidate: { evalId: string; label?: string | undefined; agent: string; dataset: string };
  rows: RowComparison[];
  regressed: string[];
  improved: string[];
  onlyBaseline: string[];
  onlyCandidate: string[];
  /** Rows whose `definitionChanges` differ between the two reports. */
  definitionChanged: string[];
  /** By scorer: the mean score over the rows of both, and the change. */
  scores: Record<
    string,
    { baseline: number; candidate: number; delta: number; comparable: boolean }
  >;
  /** The rows' cost in USD (the rows of both; unknown when a row's cost is). */
  cost: MeasureDelta;
  /** The rows' median latency in ms (the rows of both). */
  latency: MeasureDelta;
  thresholds: EvalThresholds;
  /** Every threshold held. */
  passed: boolean;
  /** Why it did not pass: one line per threshold that failed. */
  reasons: string[];
  /** What makes the comparison weaker: other datasets, agents, scorer versions. */
  warnings: string[];
}

/** A report checked, its problem named under `side` (`baseline.rows.2.scores`). */
function checked(side: string, report: unknown): EvalReport {
  const parsed = EvalReport.safeParse(report);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InvalidEvalReportError([side, ...issue.path].join('.'), issue.message);
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

function measure(baseline: number | undefined, candidate: number | undefined): MeasureDelta {
  if (baseline === undefined || candidate === undefined) {
    return { baseline, candidate, delta: undefined, increase: undefined };
  }
  const increase =
    baseline === 0 ? (candidate === 0 ? 0 : Number.POSITIVE_INFINITY) : candidate / baseline - 1;
  return { baseline, candidate, delta: roundUsd(candidate - baseline), increase: round(increase) };
}

/** The rows' cost, or undefined when one row's cost is unknown. */
function costOf(rows: readonly EvalRowResult[]): number | undefined {
  const costs = rows.map((r) => r.outcome?.usage.costUsd);
  return costs.every((c) => c !== undefined) ? addUsd(...costs) : undefined;
}

const changeOf = (b: EvalRowResult | undefined, c: EvalRowResult | undefined): RowChange => {
  if (!c) return 'only-baseline';
  if (!b) return 'only-candidate';
  if (b.pass) return c.pass ? 'still-passing' : 'regressed';
  return c.pass ? 'improved' : 'still-failing';
};

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** The version each scorer had in a report's scores (the first one seen). */
function versionsOf(report: EvalReport): Map<string, string | undefined> {
  const versions = new Map<string, string | undefined>();
  for (const row of report.rows) {
    for (const [name, score] of Object.entries(row.scores)) {
      if (!versions.has(name)) versions.set(name, score.version);
    }
  }
  return versions;
}

/**
 * Compares a candidate eval report with a baseline of the same dataset, row by row (by row id):
 * the rows that regressed (passed, now fail), improved, or are in one report only; each
 * scorer's mean score and its change; the cost and median latency and their change; the rows
 * whose agent definition changed differently. `passed` says whether the thresholds held, and
 * `reasons` which did not. A scorer whose version differs between the two (a judge's new
 * prompt) is compared with a warning and left out of `minScoreDelta`.
 * @throws InvalidEvalReportError naming `baseline.` or `candidate.` and the field, for a value
 *   that is not an eval report; TypeError for bad thresholds.
 */
export function compareEvals(
  baseline: EvalReport,
  candidate: EvalReport,
  thresholds: EvalThresholds = {},
): EvalComparison {
  new OptionChecker('compareEvals()', thresholds, THRESHOLD_NAMES)
    .nonNegativeInteger('maxRegressedRows')
    .check(
      'minScoreDelta',
      'a number in [-1, 1]',
      (v) => typeof v === 'number' && v >= -1 && v <= 1,
    )
    .nonNegativeNumber('maxCostIncrease')
    .nonNegativeNumber('maxLatencyIncrease');
  const base = checked('baseline', baseline);
  const cand = checked('candidate', candidate);
  const baseRows = new Map(base.rows.map((r) => [r.rowId, r]));
  const candRows = new Map(cand.rows.map((r) => [r.rowId, r]));
  const ids = [...baseRows.keys(), ...[...candRows.keys()].filter((id) => !baseRows.has(id))];

  const rows: RowComparison[] = ids.map((rowId) => {
    const b = baseRows.get(rowId);
    const c = candRows.get(rowId);
    const scorers = new Set([...Object.keys(b?.scores ?? {}), ...Object.keys(c?.scores ?? {})]);
    const scores: RowComparison['scores'] = {};
    for (const name of scorers) {
      const bs = b?.scores[name];
      const cs = c?.scores[name];
      scores[name] = {
        baseline: bs?.score,
        candidate: cs?.score,
        delta: bs && cs ? round(cs.score - bs.score) : undefined,
        reason: cs?.reason,
      };
    }
    const definitionChanged =
      b !== undefined && c !== undefined && !sameList(b.definitionChanges, c.definitionChanges);
    return {
      rowId,
      change: changeOf(b, c),
      baseline: b && { pass: b.pass, status: b.status },
      candidate: c && { pass: c.pass, status: c.status },
      scores,
      definitionChanged,
      definitionChanges: definitionChanged
        ? { baseline: b.definitionChanges, candidate: c.definitionChanges }
        : undefined,
    };
  });
  const withChange = (change: RowChange): string[] =>
    rows.filter((r) => r.change === change).map((r) => r.rowId);

  const both = ids.filter((id) => baseRows.has(id) && candRows.has(id));
  const baseBoth = both.map((id) => baseRows.get(id)!);
  const candBoth = both.map((id) => candRows.get(id)!);
  const warnings: string[] = [];
  if (base.dataset.hash !== cand.dataset.hash) {
    warnings.push(
      `the datasets differ (baseline ${base.dataset.name} ${base.dataset.hash}, candidate ${cand.dataset.name} ${cand.dataset.hash}): only rows of both are compared`,
    );
  }
  if (base.agent !== cand.agent) {
    warnings.push(`the agents differ (baseline ${base.agent}, candidate ${cand.agent})`);
  }
  const baseVersions = versionsOf(base);
  const candVersions = versionsOf(cand);
  const scores: EvalComparison['scores'] = {};
  for (const [name, version] of baseVersions) {
    if (!candVersions.has(name)) continue;
    const comparable = candVersions.get(name) === version;
    if (!comparable) {
      warnings.push(
        `scorer "${name}" has another version (baseline ${version ?? 'none'}, candidate ${candVersions.get(name) ?? 'none'}): its scores are not comparable`,
      );
    }
    const scoresOf = (list: readonly EvalRowResult[]): number[] =>
      list.flatMap((r) => (r.scores[name] ? [r.scores[name].score] : []));
    const b = round(mean(scoresOf(baseBoth)));
    const c = round(mean(scoresOf(candBoth)));
    scores[name] = { baseline: b, candidate: c, delta: round(c - b), comparable };
  }
  const cost = measure(costOf(baseBoth), costOf(candBoth));
  const latency = measure(
    median(baseBoth.map((r) => r.latencyMs)),
    median(candBoth.map((r) => r.latencyMs)),
  );

  const regressed = withChange('regressed');
  const reasons: string[] = [];
  const { maxRegressedRows, minScoreDelta, maxCostIncrease, maxLatencyIncrease } = thresholds;
  if (maxRegressedRows !== undefined && regressed.length > maxRegressedRows) {
    reasons.push(
      `${regressed.length} rows regressed (at most ${maxRegressedRows}): ${regressed.join(', ')}`,
    );
  }
  if (minScoreDelta !== undefined) {
    for (const [name, s] of Object.entries(scores)) {
      if (s.comparable && s.delta < minScoreDelta) {
        reasons.push(
          `the mean score of "${name}" changed by ${s.delta} (at least ${minScoreDelta})`,
        );
      }
    }
  }
  const increase = (what: string, m: MeasureDelta, most: number | undefined): void => {
    if (most === undefined) return;
    if (m.increase === undefined)
      reasons.push(`${what} is unknown: its increase cannot be checked`);
    else if (m.increase > most) {
      const pct = (x: number): string => (Number.isFinite(x) ? `${round(x * 100)}%` : 'from none');
      reasons.push(`${what} increased by ${pct(m.increase)} (at most ${pct(most)})`);
    }
  };
  increase('the cost', cost, maxCostIncrease);
  increase('the median latency', latency, maxLatencyIncrease);

  const side = (r: EvalReport) => ({
    evalId: r.evalId,
    ...(r.label === undefined ? {} : { label: r.label }),
    agent: r.agent,
    dataset: r.dataset.name,
  });
  return {
    baseline: side(base),
    candidate: side(cand),
    rows,
    regressed,
    improved: withChange('improved'),
    onlyBaseline: withChange('only-baseline'),
    onlyCandidate: withChange('only-candidate'),
    definitionChanged: rows.filter((r) => r.definitionChanged).map((r) => r.rowId),
    scores,
    cost,
    latency,
    thresholds,
    passed: reasons.length === 0,
    reasons,
    warnings,
  };
}
