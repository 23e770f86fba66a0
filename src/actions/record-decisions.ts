import { NothingToResumeError } from '../errors/session-errors.js';
import { checkStoredDecisions, withRunId } from './decision-checks.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import type { SessionAction } from './session-action.js';
import { type RunNode } from '../runs/run-tree.js';
import { sendDecisions, type Decider } from './send-decisions.js';

/**
 * Records approval decisions in the session without running anything: the decided calls wait
 * (the run stays `awaitingApproval`, marked `held`) until the app resumes the run
 * (`agent.resume`, `continueRun`), which runs them with its tools. This is what a process
 * without the app's tools (the command line) can do. The decisions are checked like
 * `continueRun`'s before anything is loaded; a session without a paused run is
 * `NothingToResumeError`.
 */
export function recordDecisions(
  decisions: readonly ApprovalDecision[],
  who: Decider = {},
): SessionAction<void> {
  const resolved = (root: RunNode) => decisions.map((d) => withRunId(root, d));
  return {
    name: 'recordDecisions',
    check({ key, record, now }) {
      checkStoredDecisions(key, record, resolved, now);
    },
    async apply(ctx) {
      const { host, key } = ctx;
      const run = host.runSnapshot();
      if (!run || run.status !== 'active') {
        throw new NothingToResumeError(key.sessionId, host.stateName());
      }
      sendDecisions(ctx, run, resolved(run), who, { cause: 'recordDecisions', hold: true });
      await host.committer.flush();
    },
  };
}
