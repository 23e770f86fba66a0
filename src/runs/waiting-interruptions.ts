import { pendingApproval } from '../machines/call-approvals.js';
import { interruptionOf } from './call-fingerprint.js';
import type { Interruption } from './run-state.js';
import { pausedRuns, runState, type RunNode } from './run-tree.js';

/**
 * The calls a run tree waits on for a human's decision, as interruptions: those of the run
 * itself when it waits for approvals, else those of the sub-agent runs that wait for them.
 */
export function waitingInterruptions(root: RunNode): Interruption[] {
  return pausedRuns(root)
    .filter((run) => runState(run) === 'awaitingApproval')
    .flatMap((run) => {
      const ctx = run.context;
      return ctx ? ctx.calls.filter(pendingApproval).map((call) => interruptionOf(call, ctx)) : [];
    });
}
