import type { Agent } from '../agent/agent.js';
import type { Clock } from '../core/clock.js';
import {
  definitionChanges,
  type DefinitionFingerprint,
} from '../definition/definition-fingerprint.js';
import { AgentStateError } from '../errors/agentstate-error.js';
import type { EvalCandidate, EvalTools } from './eval-candidate.js';
import type { EvalRowResult } from './eval-report.js';
import { scoreRow } from './score-row.js';
import type { EvalOutcome, EvalRow } from './eval-row.js';
import { agentFingerprint } from './agent-fingerprint.js';
import { candidateAgent, evaluateRun } from './evaluate-run.js';
import { evaluateStep } from './evaluate-step.js';
import type { Scorer } from './scorer.js';

/** What evaluating a row needs, the same for every row of an eval run. */
export interface RowEvaluation {
  agent: Agent<unknown>;
  scorers: readonly Scorer[];
  candidate: EvalCandidate;
  tools: EvalTools;
  clock: Clock;
  signal: AbortSignal;
}

/** An error as a row result holds it: its code (a typed error's) and message. */
function errorOf(error: unknown): { code?: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof AgentStateError ? { code: error.code, message } : { message };
}

/**
 * One row evaluated and scored: a `step` row through the seam, a `run` row through the whole
 * agent; what changed in the definition since the row was recorded; its latency on the eval's
 * clock. A row that cannot run is a result with status `error`, not a failed eval. Plain JSON.
 */
export async function evaluateRow(row: EvalRow, on: RowEvaluation): Promise<EvalRowResult> {
  const started = on.clock.now();
  let outcome: EvalOutcome | undefined;
  let diverged: boolean | undefined;
  let error: { code?: string; message: string } | undefined;
  try {
    if (row.kind === 'step') {
      ({ outcome, diverged } = await evaluateStep(row, on.agent, on.candidate, on.signal));
    } else {
      outcome = await evaluateRun(row, on.agent, on.candidate, on.tools, on.signal);
    }
  } catch (caught) {
    on.signal.throwIfAborted();
    error = errorOf(caught);
  }
  const latencyMs = Math.max(0, on.clock.now() - started);
  const scored = outcome
    ? await scoreRow(on.scorers, { row, outcome, signal: on.signal })
    : { scores: {}, pass: false };
  const evaluated = await agentFingerprint(candidateAgent(on.agent, on.candidate), row.agent).catch(
    () => undefined,
  );
  const changes = evaluated
    ? definitionChanges(row.fingerprint as DefinitionFingerprint, evaluated).map((c) => c.part)
    : [];
  const result: EvalRowResult = {
    rowId: row.id,
    kind: row.kind,
    status: outcome ? 'scored' : 'error',
    ...(outcome ? { outcome } : {}),
    scores: scored.scores,
    pass: outcome !== undefined && scored.pass,
    latencyMs,
    definitionChanges: changes,
    ...(diverged === undefined ? {} : { diverged }),
    ...(error ? { error } : {}),
  };
  return JSON.parse(JSON.stringify(result)) as EvalRowResult;
}
