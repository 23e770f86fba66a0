import type { SessionAction } from './session-action.js';

/**
 * Cancels the session's paused or crashed run: one waiting for an approval, interrupted (by
 * its budget, its turn limit or a failed model call), or stopped in flight by a crash. The
 * run ends `cancelled` (its steps in flight are stopped before they run again), each of its tool
 * calls without a result gets one saying the run was cancelled, and the session takes messages
 * again. A run executing now is cancelled through its signal instead (`agent.cancel` reaches it,
 * in this process or another; this action then raises `RunInProgressError`); a session without
 * a run raises `InvalidSessionTransitionError`. `by` names who cancelled, for the audit log.
 */
export function cancelRun(by?: string): SessionAction {
  return {
    name: 'cancelRun',
    ...(by === undefined ? {} : { auditSummary: `cancelRun by ${by}` }),
    event: { type: 'CANCEL' },
    // Loads the run like a resume does (also a crashed one), under the one-live-run guard.
    runs: true,
    // Restored steps see an aborted signal: a crashed run's step in flight does not run again.
    observe: { signal: AbortSignal.abort() },
    async apply({ host }) {
      host.cancel('cancelRun');
      await host.settle();
    },
  };
}
