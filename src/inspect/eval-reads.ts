import { listEvalRuns, readEvalReport } from '../evals/eval-runs.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';

/** The eval runs the store holds for `userId` (the page's results view). */
export async function listEvals(runtime: SessionRuntime, userId: string | undefined) {
  return { userId: userId ?? null, evals: await listEvalRuns(runtime.store, { userId }) };
}

/** One eval run's report, finished or not (its rows so far), for `userId`. */
export async function evalDetail(runtime: SessionRuntime, id: string, userId: string | undefined) {
  return readEvalReport(runtime.store, id, { userId, partial: true });
}
