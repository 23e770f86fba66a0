/**
 * Evals from what ran: datasets of rows built from stored runs (JSONL files the app commits),
 * evaluated against an agent (the whole run, or one model call: the seam), scored, and kept as
 * a persisted eval run that resumes after a crash.
 */
export {
  parseDataset,
  readDataset,
  writeDataset,
  appendRows,
  type EvalDataset,
} from './evals/eval-dataset.js';
export { rowsFromRun, type RowsFromRunOptions, type RowsSource } from './evals/rows-from-run.js';
export {
  EvalRow,
  EvalOutcome,
  EvalUsage,
  EvalToolCall,
  EvalDecision,
  EvalModelRequest,
  EvalExpectation,
  EVAL_ROW_FORMAT,
  EVAL_ROW_VERSION,
} from './evals/eval-row.js';
export {
  EvalReport,
  EvalRowResult,
  EvalSummary,
  EvalScore,
  EVAL_REPORT_FORMAT,
  EVAL_REPORT_VERSION,
} from './evals/eval-report.js';
export type { Scorer, Score, ScoreInput } from './evals/scorer.js';
