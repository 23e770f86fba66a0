import { z } from 'zod';
import { EvalOutcome, EvalUsage } from './eval-row.js';

/**
 * What an eval run gives: per row, its outcome and scores; a summary. Plain JSON, written as a
 * file (`--out`), read back by `compareEvals` and `parseEvalReport`.
 */

export const EVAL_REPORT_FORMAT = 'agentstate-eval-report';
export const EVAL_REPORT_VERSION = 1;

const count = z.number().int().nonnegative();

export const EvalScore = z.object({
  score: z.number().min(0).max(1),
  pass: z.boolean(),
  reason: z.string().optional(),
  /** The scorer's version, when it has one. */
  version: z.string().optional(),
  usage: EvalUsage.optional(),
});
export type EvalScore = z.infer<typeof EvalScore>;

export const EvalRowResult = z.object({
  rowId: z.string().min(1),
  kind: z.enum(['run', 'step']),
  /** `scored`: it ran and every scorer scored it; `error`: it could not run (see `error`). */
  status: z.enum(['scored', 'error']),
  outcome: EvalOutcome.optional(),
  /** By scorer name. */
  scores: z.record(z.string(), EvalScore),
  /** Every scorer passed. */
  pass: z.boolean(),
  /** Wall time of the row's run or step (ms, from the eval's clock). */
  latencyMs: z.number().nonnegative(),
  /** The parts of the agent's definition that differ from the row's fingerprint (empty: none). */
  definitionChanges: z.array(z.string()),
  /** A `step` row whose candidate answer asked for other tool calls than recorded. */
  diverged: z.boolean().optional(),
  error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
});
export type EvalRowResult = z.infer<typeof EvalRowResult>;

export const EvalSummary = z.object({
  rows: count,
  passed: count,
  failed: count,
  errored: count,
  /** Mean score and passes by scorer. */
  scores: z.record(z.string(), z.object({ mean: z.number(), passed: count })),
  usage: EvalUsage,
  latencyMs: z.object({ median: z.number(), p95: z.number() }),
});
export type EvalSummary = z.infer<typeof EvalSummary>;

export const EvalReport = z.object({
  format: z.literal(EVAL_REPORT_FORMAT),
  version: z.literal(EVAL_REPORT_VERSION),
  /** The eval run's id (its record in the store). */
  evalId: z.string().min(1),
  /** The agent evaluated, and its definition fingerprint then. */
  agent: z.string().min(1),
  fingerprint: z.record(z.string(), z.string()),
  /** The dataset: its name, row count and content hash (sha256 of its lines, base64url). */
  dataset: z.object({ name: z.string(), rows: count, hash: z.string() }),
  /** A label for what was evaluated (`baseline`, `gpt-5-mini`, `prompt v7`). */
  label: z.string().optional(),
  startedAt: count,
  finishedAt: count,
  rows: z.array(EvalRowResult),
  summary: EvalSummary,
});
export type EvalReport = z.infer<typeof EvalReport>;
