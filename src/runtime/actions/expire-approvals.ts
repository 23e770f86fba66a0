import { approvalDeadline } from '../run-activity.js';
import type { RunResult } from '../run-result.js';
import type { SessionAction } from '../session-action.js';
import { continueRun } from './continue-run.js';

/**
 * The approval scheduler's action: continues a run whose approval deadline has passed. Its
 * restored durable timer rejects the overdue calls with reason `timeout` and the run goes on
 * to the model. A session whose run has no overdue approval (any more) is left as it is and
 * gives `undefined`, so a stale index entry is never acted on.
 */
export function expireApprovals(): SessionAction<RunResult | undefined> {
  const resume = continueRun();
  return {
    name: 'expireApprovals',
    runs: true,
    async apply(ctx) {
      const deadline = approvalDeadline(ctx.host.runSnapshot());
      if (deadline === undefined || deadline > ctx.clock.now()) return undefined;
      return resume.apply(ctx);
    },
  };
}
