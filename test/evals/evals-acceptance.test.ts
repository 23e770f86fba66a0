import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareEvals } from '../../src/evals/compare-evals.js';
import { parseDataset, writeDataset } from '../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { rowsFromRun } from '../../src/evals/rows-from-run.js';
import { runEval } from '../../src/evals/run-eval.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../src/evals/scorers/tool-calls-match.js';
import { trajectoryMatch } from '../../src/evals/scorers/trajectory-match.js';
import { MemorySessionStore } from '../../src/testing.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import {
  BILL_REQUESTS,
  billsAgent,
  billsModel,
  storeBillSessions,
} from '../helpers/eval-sessions.js';

/**
 * Issue 46's acceptance: a dataset of 20 rows built from stored sessions of the bills example
 * (approvals approved and rejected), a baseline eval (the agent as it ran: every row passes)
 * and a deliberately worse candidate (paying $1 more for every bill under $50): the comparison
 * names exactly the regressed rows, and `agentstate eval compare` exits 1 under
 * `--max-regressed 0`.
 */
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const scorers = () => [exactOutput(), toolCallsMatch(), trajectoryMatch()];

describe('evals acceptance: 20 rows of the bills example, a baseline and a worse candidate', () => {
  it('names exactly the regressed rows, and the command line gates on them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-evals-'));
    const sessions = new MemorySessionStore();
    const agent = billsAgent();
    const stored = await storeBillSessions(sessions, 'alice', agent);
    const rows: EvalRow[] = [];
    for (const { sessionId } of stored) {
      rows.push(
        ...(await rowsFromRun(
          { store: sessions, agent },
          { sessionId, userId: 'alice' },
          { idPrefix: sessionId, tags: ['bills'] },
        )),
      );
    }
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => r.decisions?.[0]?.decision === 'approve')).toHaveLength(4);
    expect(rows.filter((r) => r.decisions?.[0]?.decision === 'reject')).toHaveLength(4);
    const file = join(dir, 'bills.jsonl');
    const dataset = await writeDataset(file, rows);
    expect(parseDataset(await readFile(file, 'utf8'), { name: 'bills' }).hash).toBe(dataset.hash);

    // The eval runs are persisted in a store of their own.
    const evals = new MemorySessionStore();
    const baseline = await runEval({
      id: 'baseline',
      store: evals,
      agent,
      dataset,
      scorers: scorers(),
      label: 'baseline',
    });
    expect(baseline.summary).toMatchObject({ rows: 20, passed: 20, failed: 0, errored: 0 });
    const candidate = await runEval({
      id: 'careless',
      store: evals,
      agent,
      dataset,
      scorers: scorers(),
      candidate: { model: billsModel({ careless: true }) },
      label: 'careless',
    });
    const under50 = stored
      .filter((_, i) => BILL_REQUESTS[i]!.amountUsd < 50)
      .map((s) => s.sessionId);
    expect(under50).toEqual(['bill-01', 'bill-02', 'bill-03', 'bill-12', 'bill-13', 'bill-17']);
    expect(
      candidate.rows
        .filter((r) => !r.pass)
        .map((r) => r.rowId)
        .sort(),
    ).toEqual(under50);

    const comparison = compareEvals(baseline, candidate, { maxRegressedRows: 0 });
    expect(comparison.passed).toBe(false);
    expect([...comparison.regressed].sort()).toEqual(under50);
    expect(comparison.improved).toEqual([]);

    // The same gate from the command line, on the two reports as files.
    const base = join(dir, 'baseline.json');
    const worse = join(dir, 'careless.json');
    await writeFile(base, JSON.stringify(baseline));
    await writeFile(worse, JSON.stringify(candidate));
    const gate = await cliInProcess(['eval', 'compare', base, worse, '--max-regressed', '0']);
    expect(gate.code).toBe(1);
    for (const id of under50) expect(gate.stdout).toContain(id);
    const loose = await cliInProcess(['eval', 'compare', base, worse, '--max-regressed', '6']);
    expect(loose.code).toBe(0);
  });
});
