import { exportReplay, type Agent, type ReplayFile } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import type { EvalOutcome, EvalRow } from '../../src/evals/eval-row.js';
import type { ScoreInput } from '../../src/evals/scorer.js';

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
