import type { EvalOutcome, EvalRow } from './eval-row.js';

/** What a scorer gave one row: a score in [0, 1], whether it passes, and why. */
export interface Score {
  score: number;
  pass: boolean;
  reason?: string | undefined;
  /** Tokens and cost the scorer itself spent (an LLM judge's). */
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number | undefined } | undefined;
}

/** What a scorer reads for one row. */
export interface ScoreInput {
  row: EvalRow;
  /** What the evaluated agent (or the candidate model, in a seam) did. */
  outcome: EvalOutcome;
  /** Aborted when the eval run stops. */
  signal: AbortSignal;
}

/**
 * Scores one row's outcome. `name` keys its scores in a report (unique in an eval run);
 * `version` is recorded with each score, so a changed scorer (a judge's new prompt) is not
 * compared with its old self silently.
 */
export interface Scorer {
  readonly name: string;
  readonly version?: string | undefined;
  score(input: ScoreInput): Score | Promise<Score>;
}
