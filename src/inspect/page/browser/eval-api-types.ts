/** The eval JSON the page reads (`/api/evals`, `/api/datasets`), as the server sends it. */

/** One eval run the store holds, as `/api/evals` lists it. */
export interface EvalRunSummary {
  evalId: string;
  /** The eval run's workflow status: `completed` when every row is done. */
  status: string;
  agent: string;
  label?: string;
  dataset: { name: string; rows: number; hash: string };
  /** Rows evaluated so far, passed and errored among them. */
  done: number;
  passed: number;
  errored: number;
  startedAt: number;
  updatedAt: number;
}

export interface EvalRunList {
  userId: string | null;
  evals: EvalRunSummary[];
}

/** One scorer's score of a row. */
export interface EvalScoreView {
  score: number;
  pass: boolean;
  reason?: string;
  version?: string;
}

/** One row's result in a report. */
export interface EvalRowView {
  rowId: string;
  kind: 'run' | 'step';
  status: 'scored' | 'error';
  scores: Record<string, EvalScoreView>;
  pass: boolean;
  latencyMs: number;
  definitionChanges: string[];
  diverged?: boolean;
  outcome?: { status: string; output?: string };
  error?: { code?: string; message: string };
}

/** An eval run's report (`/api/evals/<id>`), finished or not. */
export interface EvalReportView {
  evalId: string;
  agent: string;
  label?: string;
  dataset: { name: string; rows: number; hash: string };
  startedAt: number;
  finishedAt: number;
  rows: EvalRowView[];
  summary: {
    rows: number;
    passed: number;
    failed: number;
    errored: number;
    scores: Record<string, { mean: number; passed: number }>;
    latencyMs: { median: number; p95: number };
  };
}

/** What adding a run to a dataset did (`POST /api/sessions/<id>/dataset`). */
export interface DatasetAdded {
  dataset: string;
  added: string[];
  kind: 'run' | 'step';
}
