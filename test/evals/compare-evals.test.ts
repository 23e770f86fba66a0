import { describe, expect, it } from 'vitest';
import { InvalidEvalReportError } from '../../src/errors/eval-errors.js';
import { compareEvals } from '../../src/evals/compare-evals.js';
import { comparisonMarkdown } from '../../src/evals/comparison-markdown.js';
import { evalReport, rowResult } from '../helpers/eval-row-fixtures.js';

const baseline = evalReport(
  'base-1',
  [
    rowResult('r1', { costUsd: 0.01 }),
    rowResult('r2', { costUsd: 0.01 }),
    rowResult('r3', { exact: 0, costUsd: 0.01 }),
    rowResult('r4', { costUsd: 0.01, latencyMs: 300 }),
    rowResult('gone', { costUsd: 0.01 }),
  ],
  { label: 'baseline' },
);

const candidate = evalReport(
  'cand-1',
  [
    rowResult('r1', { costUsd: 0.02, latencyMs: 150 }),
    rowResult('r2', {
      exact: 0,
      costUsd: 0.01,
      latencyMs: 150,
      scores: {
        exact: { score: 0, pass: false, reason: 'the output "Paid." is not "Paid $120."' },
      },
    }),
    rowResult('r3', { costUsd: 0.01, latencyMs: 150 }),
    rowResult('r4', { costUsd: 0.01, latencyMs: 300, definitionChanges: ['instructions'] }),
    rowResult('new', { costUsd: 0.01 }),
  ],
  { label: 'prompt v2' },
);

describe('compareEvals', () => {
  it('per row by id: regressed, improved, in one report only, definition changed; scores, cost and latency', () => {
    const c = compareEvals(baseline, candidate);
    expect(c.regressed).toEqual(['r2']);
    expect(c.improved).toEqual(['r3']);
    expect(c.onlyBaseline).toEqual(['gone']);
    expect(c.onlyCandidate).toEqual(['new']);
    expect(c.definitionChanged).toEqual(['r4']);
    expect(c.rows.find((r) => r.rowId === 'r2')).toMatchObject({
      change: 'regressed',
      scores: { exact: { baseline: 1, candidate: 0, delta: -1 } },
    });
    expect(c.rows.find((r) => r.rowId === 'r4')!.definitionChanges).toEqual({
      baseline: [],
      candidate: ['instructions'],
    });
    // the rows of both: r1..r4
    expect(c.scores).toEqual({
      exact: { baseline: 0.75, candidate: 0.75, delta: 0, comparable: true },
    });
    expect(c.cost).toEqual({ baseline: 0.04, candidate: 0.05, delta: 0.01, increase: 0.25 });
    expect(c.latency).toEqual({ baseline: 100, candidate: 150, delta: 50, increase: 0.5 });
    expect(c).toMatchObject({ passed: true, reasons: [], warnings: [] });
  });

  it('thresholds: each failed one is a reason, and the comparison does not pass', () => {
    const c = compareEvals(baseline, candidate, {
      maxRegressedRows: 0,
      minScoreDelta: 0,
      maxCostIncrease: 0.1,
      maxLatencyIncrease: 0.2,
    });
    expect(c.passed).toBe(false);
    expect(c.reasons).toEqual([
      '1 rows regressed (at most 0): r2',
      'the cost increased by 25% (at most 10%)',
      'the median latency increased by 50% (at most 20%)',
    ]);
    const loose = compareEvals(baseline, candidate, {
      maxRegressedRows: 1,
      maxCostIncrease: 0.3,
      maxLatencyIncrease: 0.5,
    });
    expect(loose.passed).toBe(true);
  });

  it('a scorer of another version is not compared silently; an unknown cost cannot pass a cost threshold', () => {
    const judged = (evalId: string, version: string, score: number, hash = 'h1') =>
      evalReport(
        evalId,
        [rowResult('r1', { scores: { judge: { score, pass: score >= 0.5, version } } })],
        { dataset: { name: 'bills', rows: 1, hash } },
      );
    const c = compareEvals(judged('a', 'v1', 0.9), judged('b', 'v2', 0.6, 'h2'), {
      minScoreDelta: 0,
      maxCostIncrease: 1,
    });
    expect(c.scores['judge']).toEqual({
      baseline: 0.9,
      candidate: 0.6,
      delta: -0.3,
      comparable: false,
    });
    expect(c.warnings).toEqual([
      'the datasets differ (baseline bills h1, candidate bills h2): only rows of both are compared',
      'scorer "judge" has another version (baseline v1, candidate v2): its scores are not comparable',
    ]);
    expect(c.reasons).toEqual(['the cost is unknown: its increase cannot be checked']);
    const same = compareEvals(judged('a', 'v1', 0.9), judged('b', 'v1', 0.6), {
      minScoreDelta: -0.1,
    });
    expect(same.reasons).toEqual(['the mean score of "judge" changed by -0.3 (at least -0.1)']);
  });

  it('comparisonMarkdown: the verdict, the measures, the regressed rows with their reasons', () => {
    const markdown = comparisonMarkdown(compareEvals(baseline, candidate, { maxRegressedRows: 0 }));
    expect(markdown).toContain('## Eval comparison: prompt v2 (cand-1) against baseline (base-1)');
    expect(markdown).toContain('**Failed**:\n- 1 rows regressed (at most 0): r2');
    expect(markdown).toContain('| rows passing | 4 of 5 | 4 of 5 | |');
    expect(markdown).toContain('| score: exact | 0.75 | 0.75 | 0 |');
    expect(markdown).toContain('| cost (USD) | 0.04 | 0.05 | +0.01 |');
    expect(markdown).toContain(
      '### Regressed rows (1)\n\n- r2: exact 1 -> 0 (the output "Paid." is not "Paid $120.")',
    );
    expect(markdown).toContain('### Improved rows (1)\n\n- r3: exact 0 -> 1');
    expect(markdown).toContain('### Rows only in the baseline (1)\n\n- gone');
    expect(markdown).toContain(
      '### Rows whose agent definition changed differently (1)\n\n- r4: baseline [], candidate [instructions]',
    );
    expect(comparisonMarkdown(compareEvals(baseline, baseline))).toContain(
      '**Passed**: every threshold held.',
    );
  });

  it('bad input: a value that is not a report names its side and field; bad thresholds are TypeErrors', () => {
    const broken = { ...candidate, rows: [{ ...candidate.rows[0]!, rowId: '' }] };
    let error: unknown;
    try {
      compareEvals(baseline, broken);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidEvalReportError);
    expect((error as InvalidEvalReportError).path).toBe('candidate.rows.0.rowId');
    expect((error as InvalidEvalReportError).code).toBe('INVALID_EVAL_REPORT');
    expect(() => compareEvals(baseline, candidate, { maxRegressedRows: -1 })).toThrow(
      /maxRegressedRows/,
    );
    expect(() => compareEvals(baseline, candidate, { maxRegresedRows: 1 } as never)).toThrow(
      /did you mean "maxRegressedRows"/,
    );
  });
});
