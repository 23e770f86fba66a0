import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvalReport, EvalRowResult } from '../../src/evals/eval-report.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { evalReport } from '../helpers/eval-row-fixtures.js';

/** Issue 46: `agentstate eval compare`, the CI gate, on two report files. */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentstate-eval-compare-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A row result: passing or not on the one scorer `exact`. */
const row = (rowId: string, pass: boolean, costUsd = 0.001): EvalRowResult => ({
  rowId,
  kind: 'run',
  status: 'scored',
  outcome: {
    status: 'completed',
    output: pass ? 'Paid.' : 'Paid twice.',
    toolCalls: [],
    trajectory: [],
    turns: 2,
    usage: { inputTokens: 20, outputTokens: 10, costUsd },
  },
  scores: { exact: { score: pass ? 1 : 0, pass, ...(pass ? {} : { reason: 'not the output' }) } },
  pass,
  latencyMs: 5,
  definitionChanges: [],
});

const report = (evalId: string, rows: EvalRowResult[]): EvalReport =>
  evalReport(evalId, rows, { label: evalId });

async function files(baseline: EvalReport, candidate: EvalReport): Promise<[string, string]> {
  const paths: [string, string] = [join(dir, 'baseline.json'), join(dir, 'candidate.json')];
  await writeFile(paths[0], JSON.stringify(baseline));
  await writeFile(paths[1], JSON.stringify(candidate));
  return paths;
}

describe('agentstate eval compare', () => {
  it('exits 1 naming the regressed row under --max-regressed 0, 0 within the thresholds', async () => {
    const [base, cand] = await files(
      report('baseline', [row('r1', true), row('r2', true), row('r3', false)]),
      report('candidate', [row('r1', true), row('r2', false), row('r3', true)]),
    );
    const gate = await cliInProcess(['eval', 'compare', base, cand, '--max-regressed', '0']);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/^## Eval comparison: candidate \(candidate\) against baseline/);
    expect(gate.stdout).toContain('r2');
    expect(gate.stderr).toMatch(
      /^agentstate: the candidate .*candidate\.json fails the thresholds against .*baseline\.json: /,
    );
    const json = await cliInProcess([
      'eval',
      'compare',
      base,
      cand,
      '--max-regressed',
      '1',
      '--format',
      'json',
    ]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const comparison = JSON.parse(json.stdout) as {
      passed: boolean;
      regressed: string[];
      improved: string[];
    };
    expect(comparison).toMatchObject({ passed: true, regressed: ['r2'], improved: ['r3'] });
    // No threshold given: the comparison is printed, nothing gates.
    expect((await cliInProcess(['eval', 'compare', base, cand])).code).toBe(0);
  });

  it('gates on the cost and the mean score too', async () => {
    const [base, cand] = await files(
      report('baseline', [row('r1', true, 0.001), row('r2', true, 0.001)]),
      report('candidate', [row('r1', true, 0.002), row('r2', false, 0.002)]),
    );
    const cost = await cliInProcess(['eval', 'compare', base, cand, '--max-cost-increase', '0.5']);
    expect(cost.code).toBe(1);
    expect(cost.stderr).toMatch(/cost/);
    const score = await cliInProcess([
      'eval',
      'compare',
      base,
      cand,
      '--min-score-delta=-0.6',
      '--max-cost-increase',
      '1.5',
    ]);
    expect(score.code).toBe(0);
    const drop = await cliInProcess(['eval', 'compare', base, cand, '--min-score-delta=-0.1']);
    expect(drop.code).toBe(1);
    expect(drop.stderr).toMatch(/exact/);
  });

  it('a file that is not a report, or a bad flag, is exit 2 naming it', async () => {
    const [base, cand] = await files(
      report('b', [row('r1', true)]),
      report('c', [row('r1', true)]),
    );
    const notJson = join(dir, 'notes.txt');
    await writeFile(notJson, 'nightly run: all good');
    const notReport = join(dir, 'other.json');
    await writeFile(notReport, JSON.stringify({ format: 'agentstate-eval-report', version: 2 }));
    const cases: [string[], RegExp][] = [
      [[notJson, cand], /INVALID_EVAL_REPORT/],
      [[notJson, cand], /notes\.txt is not JSON/],
      [[base, notReport], /Invalid eval report at candidate\.version.*\[INVALID_EVAL_REPORT\]/],
      [[join(dir, 'missing.json'), cand], /<baseline>: cannot read .*missing\.json \(ENOENT\)/],
      [[base, cand, '--max-regressed', 'x'], /--max-regressed must be an integer of at least 0/],
      [[base, cand, '--max-cost-increase', '1e9'], /--max-cost-increase must be a number/],
      [[base, cand, '--format', 'html'], /--format must be markdown or json/],
      [[base], /missing <candidate>/],
    ];
    for (const [args, message] of cases) {
      const run = await cliInProcess(['eval', 'compare', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });
});
