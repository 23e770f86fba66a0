import { exportReplay, type Agent, type ReplayFile } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import type { EvalOutcome, EvalRow } from '../../src/evals/eval-row.js';
import type { ScoreInput } from '../../src/evals/scorer.js';
import type { EvalReport, EvalRowResult } from '../../src/evals/eval-report.js';

/** An outcome: a completed run with no calls, no trajectory, no usage, unless told. */
export function outcome(parts: Partial<EvalOutcome> = {}): EvalOutcome {
  return {
    status: 'completed',
    toolCalls: [],
    trajectory: [],
    turns: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    ...parts,
  };
}

/** A hand-written `run` row of agent `bills`, its recorded outcome given in part. */
export function evalRow(
  parts: Partial<Omit<EvalRow, 'recorded'>> & { recorded?: Partial<EvalOutcome> } = {},
): EvalRow {
  const { recorded, ...rest } = parts;
  return {
    format: 'agentstate-eval-row',
    version: 1,
    id: 'row-1',
    agent: 'bills',
    fingerprint: {},
    kind: 'run',
    input: [{ type: 'message', role: 'user', content: 'Pay ACME $120' }],
    ...rest,
    recorded: outcome(recorded),
  };
}

/** What a scorer reads for `row` and `actual`, with a signal never aborted. */
export const scoreInput = (row: EvalRow, actual: EvalOutcome): ScoreInput => ({
  row,
  outcome: actual,
  signal: new AbortController().signal,
});

const key = { sessionId: 's1', userId: 'alice' };

/** Runs `agent` on `input`, decides each approval it waits for, and exports the run. */
export async function recordedReplay(
  agent: Agent,
  input: string,
  decide: 'approve' | 'reject' | 'leave',
): Promise<ReplayFile> {
  const store = new MemorySessionStore();
  let result = await agent.run(input, { ...key, store });
  while (result.interrupted && decide !== 'leave') {
    const { state } = result;
    for (const i of state.interruptions) {
      const scope = i.runId ? { runId: i.runId } : {};
      if (decide === 'approve') state.approve(i.callId, scope);
      else state.reject(i.callId, { ...scope, message: 'The user declined.' });
    }
    result = await agent.resume(state, { store });
  }
  return exportReplay(agent.runtimeFor(store), key);
}

/** A row's result: passing with score 1 on `exact`, 100 ms, no usage, unless told. */
export function rowResult(
  rowId: string,
  parts: Partial<EvalRowResult> & { exact?: number; costUsd?: number } = {},
): EvalRowResult {
  const { exact = 1, costUsd, ...rest } = parts;
  return {
    rowId,
    kind: 'run',
    status: 'scored',
    outcome: outcome({
      usage: { inputTokens: 10, outputTokens: 5, ...(costUsd === undefined ? {} : { costUsd }) },
    }),
    scores: { exact: { score: exact, pass: exact === 1 } },
    pass: exact === 1,
    latencyMs: 100,
    definitionChanges: [],
    ...rest,
  };
}

/** An eval report of `rows` (its summary left plain: compareEvals reads the rows). */
export function evalReport(
  evalId: string,
  rows: EvalRowResult[],
  parts: Partial<EvalReport> = {},
): EvalReport {
  return {
    format: 'agentstate-eval-report',
    version: 1,
    evalId,
    agent: 'bills',
    fingerprint: {},
    dataset: { name: 'bills', rows: rows.length, hash: 'h1' },
    startedAt: 0,
    finishedAt: 1,
    rows,
    summary: {
      rows: rows.length,
      passed: rows.filter((r) => r.pass).length,
      failed: rows.filter((r) => !r.pass).length,
      errored: 0,
      scores: {},
      usage: { inputTokens: 0, outputTokens: 0 },
      latencyMs: { median: 0, p95: 0 },
    },
    ...parts,
  };
}
