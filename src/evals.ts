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
export { checkRows } from './evals/check-rows.js';
export type { EvalCandidate, EvalTools } from './evals/eval-candidate.js';
export { runEval, type RunEvalOptions } from './evals/run-eval.js';
export { readEvalReport, listEvalRuns, type EvalRunSummary } from './evals/eval-runs.js';
export { parseEvalReport } from './evals/eval-report-build.js';
export { trajectoryOf, stepTrajectory, type AnswerCalls } from './evals/trajectory.js';
export { scoreRow, checkScorers, type RowScores } from './evals/score-row.js';
export { exactOutput, type ExactOutputOptions } from './evals/scorers/exact-output.js';
export { outputMatches, type OutputMatchesOptions } from './evals/scorers/output-matches.js';
export { outputSchema, type OutputSchemaOptions } from './evals/scorers/output-schema.js';
export { toolCallsMatch, type ToolCallsMatchOptions } from './evals/scorers/tool-calls-match.js';
export { trajectoryMatch, type TrajectoryMatchOptions } from './evals/scorers/trajectory-match.js';
export { budget, type BudgetOptions } from './evals/scorers/budget.js';
export { llmJudge, DEFAULT_JUDGE_PROMPT, type LlmJudgeOptions } from './evals/scorers/llm-judge.js';
export {
  scorer,
  type CustomScorerOptions,
  type CustomScore,
} from './evals/scorers/custom-scorer.js';
export {
  datasetCoverage,
  type DatasetCoverage,
  type DatasetCoverageOptions,
  type CoverageTransition,
  type OffChartRow,
} from './evals/coverage.js';
export { coverageMarkdown } from './evals/coverage-markdown.js';
export {
  compareEvals,
  type EvalComparison,
  type EvalThresholds,
  type RowComparison,
  type RowChange,
  type MeasureDelta,
} from './evals/compare-evals.js';
export { comparisonMarkdown } from './evals/comparison-markdown.js';
export {
  evalTests,
  type EvalTestsOptions,
  type EvalTestRunner,
  type EvalExpect,
} from './evals/eval-tests.js';
