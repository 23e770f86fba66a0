import { approvalDeadline, type RunLike } from '../runs/run-activity.js';
import type { RunResult } from '../session-host/run-result.js';
import type { SessionAction } from './session-action.js';
import { storedRun } from '../runs/stored-run.js';
import { continueRun } from './continue-run.js';

/**
 * Raised by {@link expireApprovals} (and caught by the scheduler, never seen by an app) when
 * the stored session has no overdue approval: its index entry is stale.
 */
export class NoOverdueApproval extends Error {}

/**
 * The approval scheduler's action: continues a run whose approval deadline has passed. Its
 * restored durable timer rejects the overdue calls with reason `timeout` and the run goes on
 * to the model. The stored record is checked first, before anything is loaded: a session whose
 * run has no overdue approval (any more) throws `NoOverdueApproval` and is left as it is, so a
 * stale index entry is never acted on.
 */
export function expireApprovals(): SessionAction<RunResult> {
  const resume = continueRun();
  return {
    name: 'expireApprovals',
    runs: true,
    continuesRun: true,
    check({ record, now }) {
      const deadline = approvalDeadline(storedRun<RunLike>(record.snapshot));
      if (deadline === undefined || deadline > now) throw new NoOverdueApproval();
    },
    apply: (ctx) => resume.apply(ctx),
  };
}
