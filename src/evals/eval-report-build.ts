import { InvalidEvalReportError } from '../errors/eval-errors.js';
import {
  EVAL_REPORT_FORMAT,
  EVAL_REPORT_VERSION,
  EvalReport,
  type EvalRowResult,
  type EvalSummary,
} from './eval-report.js';
import type { EvalRunMeta } from './eval-machine.js';
import { quantile } from './median.js';

/** The summary of row results: passes, errors, mean score by scorer, usage, latency. */
export function summaryOf(rows: readonly EvalRowResult[]): EvalSummary {
  const scores: EvalSummary['scores'] = {};
  const sums = new Map<string, { total: number; count: number; passed: number }>();
  let inputTokens = 0;
  let outputTokens = 0;
  let cost: number | undefined;
  for (const row of rows) {
    for (const [name, s] of Object.entries(row.scores)) {
      const sum = sums.get(name) ?? { total: 0, count: 0, passed: 0 };
      sum.total += s.score;
      sum.count += 1;
      sum.passed += s.pass ? 1 : 0;
      sums.set(name, sum);
    }
    const usage = row.outcome?.usage;
    if (usage) {
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
      if (usage.costUsd !== undefined) cost = (cost ?? 0) + usage.costUsd;
    }
  }
  for (const [name, sum] of sums) {
    scores[name] = { mean: sum.count ? sum.total / sum.count : 0, passed: sum.passed };
  }
  const latencies = rows.map((r) => r.latencyMs);
  const errored = rows.filter((r) => r.status === 'error').length;
  const passed = rows.filter((r) => r.pass).length;
  return {
    rows: rows.length,
    passed,
    failed: rows.length - passed - errored,
    errored,
    scores,
    usage: { inputTokens, outputTokens, ...(cost === undefined ? {} : { costUsd: cost }) },
    latencyMs: { median: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) },
  };
}

/** The report of an eval run from what it was started with and its row results (in row order). */
export function buildReport(
  evalId: string,
  meta: EvalRunMeta,
  rows: EvalRowResult[],
  finishedAt: number,
): EvalReport {
  return {
    format: EVAL_REPORT_FORMAT,
    version: EVAL_REPORT_VERSION,
    evalId,
    agent: meta.agent,
    fingerprint: meta.fingerprint,
    dataset: meta.dataset,
    ...(meta.label === undefined ? {} : { label: meta.label }),
    startedAt: meta.startedAt,
    finishedAt,
    rows,
    summary: summaryOf(rows),
  };
}

/**
 * An eval report read back from its JSON text (a file `--out` wrote): bad JSON, another shape
 * or a newer version is `InvalidEvalReportError` naming where.
 */
export function parseEvalReport(text: string): EvalReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidEvalReportError('', `not JSON (${(error as Error).message})`);
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > EVAL_REPORT_VERSION) {
    throw new InvalidEvalReportError(
      'version',
      `version ${version} is newer than this agentstate reads (${EVAL_REPORT_VERSION})`,
    );
  }
  const parsed = EvalReport.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidEvalReportError(
      (issue?.path ?? []).map(String).join('.'),
      issue?.message ?? 'not a report',
    );
  }
  return parsed.data;
}
