/**
 * Evals from what ran, offline: yesterday's stored runs of the bills agent become a dataset (a
 * JSONL file the app would commit), the agent is evaluated on it as it is and with a worse
 * candidate model, and the compare names the rows that regressed, as a CI gate would.
 *
 *   npx tsx examples/evals.ts
 *
 * Offline: the models are scripted. Sessions, eval runs and the dataset live under
 * AGENTSTATE_DIR (a temp folder when unset).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, LevelSessionStore } from '../src/index.js';
import {
  appendRows,
  compareEvals,
  datasetCoverage,
  exactOutput,
  readDataset,
  rowsFromRun,
  runEval,
  toolCallsMatch,
  trajectoryMatch,
} from '../src/evals.js';
import { billPayingModel, bills } from './agents/bills.js';
import { say } from './processes.js';

/** What users asked yesterday, and what a human decided on the bills over $100. */
const ASKED = [
  { payee: 'ACME Power', amountUsd: 20 },
  { payee: 'City Water', amountUsd: 35 },
  { payee: 'Phone Co', amountUsd: 75 },
  { payee: 'Car Loan', amountUsd: 210, decision: 'approve' },
  { payee: 'Landlord', amountUsd: 150, decision: 'approve' },
  { payee: 'Gym Club', amountUsd: 60 },
] as const;

const given = process.env['AGENTSTATE_DIR'];
const dir = given ?? (await mkdtemp(join(tmpdir(), 'agentstate-evals-')));
const store = await LevelSessionStore.open({ path: join(dir, 'db') });
const agent = new Agent({ ...bills.options, model: billPayingModel(), store });
try {
  // 1. Yesterday, in production: runs stored as any run is.
  for (const [i, bill] of ASKED.entries()) {
    const key = { sessionId: `bill-${i + 1}`, userId: 'alice' };
    let result = await agent.run(`Please pay ${bill.payee} $${bill.amountUsd}.`, key);
    if (result.interrupted && 'decision' in bill) {
      const [call] = result.interruptions;
      result = await agent.approve(key.sessionId, call!.callId, { userId: 'alice' });
    }
  }
  say(`Stored ${ASKED.length} runs of the bills agent.`);

  // 2. Each run becomes a row of the dataset the app commits.
  const file = join(dir, 'bills.jsonl');
  for (const i of ASKED.keys()) {
    await appendRows(
      file,
      await rowsFromRun({ store, agent }, { sessionId: `bill-${i + 1}`, userId: 'alice' }),
    );
  }
  const dataset = await readDataset(file);
  say(`Dataset ${dataset.name}: ${dataset.rows.length} rows.`);
  const coverage = datasetCoverage(agent, dataset);
  for (const { transition } of coverage.transitions.uncovered)
    say(`  never exercised: ${transition}`);

  // 3. The agent as it is, and a candidate model that is worse on small bills.
  const scorers = [exactOutput(), toolCallsMatch(), trajectoryMatch()];
  const common = { store, userId: 'alice', agent, dataset, scorers };
  const baseline = await runEval({ ...common, id: 'baseline', label: 'as it is' });
  say(`Baseline: ${baseline.summary.passed} of ${baseline.summary.rows} rows pass.`);
  const candidate = await runEval({
    ...common,
    id: 'careless',
    label: 'careless model',
    candidate: { model: billPayingModel({ careless: true }) },
  });
  say(`Candidate: ${candidate.summary.passed} of ${candidate.summary.rows} rows pass.`);

  // 4. The gate: no row that passed may fail now.
  const comparison = compareEvals(baseline, candidate, { maxRegressedRows: 0 });
  say(`Regressed rows: ${comparison.regressed.join(', ')}.`);
  say(comparison.passed ? 'The gate passes.' : `The gate fails: ${comparison.reasons.join('; ')}`);
} finally {
  await store.close();
  if (!given) await rm(dir, { recursive: true, force: true });
}
