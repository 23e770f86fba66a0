/**
 * Evals (issue 46): rows per second of an eval run in seam mode (each model step of a stored
 * run sent once to a zero-latency scripted model) against replaying the whole run (the agent
 * run again per row, on a fresh memory store, its tools answering as recorded), for the same
 * stored runs of the bills example (each paying $120 after an approval); the eval run's own
 * store (where each row is a durable step) on memory and on LevelDB.
 */
import { join } from 'node:path';
import { LevelSessionStore, type SessionStore } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { parseDataset } from '../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { rowsFromRun } from '../../src/evals/rows-from-run.js';
import { runEval } from '../../src/evals/run-eval.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../src/evals/scorers/tool-calls-match.js';
import { bills } from '../../examples/agents/bills.js';
import { now } from '../stats.js';
import { rowsOf, type BenchPart, type Row } from '../table.js';
import { tempDir } from '../fixtures.js';

/** One run's figures on one eval store. */
export interface EvalsRun {
  store: 'memory' | 'LevelDB';
  /** Stored bills runs evaluated, each as its model steps (seam) and whole (run). */
  runs: number;
  seamRows: number;
  seamRowsPerS: number;
  runRowsPerS: number;
  /** Seam rows per second over whole-run rows per second. */
  ratio: number;
}

/** `n` bills sessions, each approved and paid, and their rows: model steps, and whole runs. */
async function storedRows(n: number): Promise<{ steps: EvalRow[]; runs: EvalRow[] }> {
  const store = new MemorySessionStore();
  const steps: EvalRow[] = [];
  const runs: EvalRow[] = [];
  for (let i = 0; i < n; i++) {
    const key = { sessionId: `bill-${i}`, userId: 'bench' };
    const result = await bills.run('Please pay my electricity bill: $120 to ACME Power.', {
      ...key,
      store,
    });
    for (const { callId } of result.state.interruptions) result.state.approve(callId);
    await bills.resume(result.state, { store });
    const source = { store, agent: bills };
    steps.push(
      ...(await rowsFromRun(source, key, { steps: 'model-steps', idPrefix: key.sessionId })),
    );
    runs.push(...(await rowsFromRun(source, key, { idPrefix: key.sessionId })));
  }
  return { steps, runs };
}

/** A dataset of `rows` as its file would give it. */
const datasetOf = (name: string, rows: EvalRow[]) =>
  parseDataset(rows.map((r) => JSON.stringify(r)).join('\n'), { name });

/** Times one eval of `rows` on `store`: rows per second. */
async function rowsPerSecond(id: string, store: SessionStore, rows: EvalRow[]): Promise<number> {
  const dataset = datasetOf(id, rows);
  const started = now();
  const report = await runEval({
    id,
    store,
    agent: bills,
    dataset,
    scorers: [exactOutput(), toolCallsMatch()],
  });
  const ms = now() - started;
  if (report.summary.passed !== rows.length) {
    throw new Error(`evals bench: ${id} passed ${report.summary.passed} of ${rows.length} rows`);
  }
  return (rows.length / ms) * 1000;
}

/** `npm run bench -- --evals`: seam against whole run, on memory and LevelDB, `runs` times. */
export async function evalsPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<BenchPart<{ evals: EvalsRun[] }>> {
  const n = config.smoke ? 10 : 100;
  log(`evals: storing ${n} bills runs and their rows`);
  const { steps, runs } = await storedRows(n);
  const all: EvalsRun[] = [];
  for (let run = 0; run < config.runs; run++) {
    for (const kind of ['memory', 'LevelDB'] as const) {
      log(`evals: ${kind}, run ${run + 1}/${config.runs}`);
      const dir = kind === 'LevelDB' ? await tempDir('agentstate-bench-evals-') : undefined;
      const store = dir
        ? await LevelSessionStore.open({ path: join(dir.path, 'db') })
        : new MemorySessionStore();
      try {
        const seamRowsPerS = await rowsPerSecond(`seam-${run}`, store, steps);
        const runRowsPerS = await rowsPerSecond(`run-${run}`, store, runs);
        all.push({
          store: kind,
          runs: n,
          seamRows: steps.length,
          seamRowsPerS,
          runRowsPerS,
          ratio: seamRowsPerS / runRowsPerS,
        });
      } finally {
        await store.close?.();
        await dir?.cleanup();
      }
    }
  }
  return {
    kind: 'evals',
    rows: evalsRows(all),
    targets: [],
    raw: { evals: all },
    notes: [
      `${n} stored runs of the bills example (an approval each): ${steps.length} seam rows (one model call each) and ${runs.length} whole-run rows; scorers exact and tool calls; concurrency 4.`,
    ],
  };
}

/** The table's rows: per eval store, seam and whole-run rows per second and their ratio. */
export function evalsRows(all: EvalsRun[]): Row[] {
  return (['memory', 'LevelDB'] as const).flatMap((kind) =>
    rowsOf(
      `Evals, eval store on ${kind}`,
      all.filter((r) => r.store === kind),
      [
        ['seam rows (one model step each)', '/s', (r) => r.seamRowsPerS],
        ['whole-run rows (replayed)', '/s', (r) => r.runRowsPerS],
        ['seam / whole run', 'x', (r) => r.ratio],
      ],
    ),
  );
}
