import { NothingToResumeError } from '../../errors/session-errors.js';
import { pendingApproval } from '../../machines/call-approvals.js';
import { checkDecisions } from '../decision-checks.js';
import type { RunLike } from '../run-activity.js';
import type { ApprovalDecision } from '../run-state.js';
import type { SessionAction } from '../session-action.js';
import { pausedRuns, runChain, runState, type RunNode } from '../run-tree.js';
import { storedRun } from '../stored-run.js';
import { describeSession } from '../session-view.js';

/**
 * The run of the tree holding `callId` pending, when the decision names none: a sub-agent's
 * call is decided by its id alone, as an operator reads it.
 */
function withRunId(root: RunNode, d: ApprovalDecision): ApprovalDecision {
  if (d.runId !== undefined) return d;
  const holders = pausedRuns(root).filter(
    (r) =>
      runState(r) === 'awaitingApproval' &&
      r.context?.calls.some((c) => c.callId === d.callId && pendingApproval(c)),
  );
  const runId = holders.length === 1 ? holders[0]!.context?.runId : undefined;
  return runId === undefined ? d : { ...d, runId };
}

/**
 * Records approval decisions in the session without running anything: the decided calls wait
 * (the run stays `awaitingApproval`, marked `held`) until the app resumes the run
 * (`agent.resume`, `continueRun`), which runs them with its tools. This is what a process
 * without the app's tools (the command line) can do. The decisions are checked like
 * `continueRun`'s before anything is loaded; a session without a paused run is
 * `NothingToResumeError`.
 */
export function recordDecisions(decisions: readonly ApprovalDecision[]): SessionAction<void> {
  const resolved = (root: RunNode) => decisions.map((d) => withRunId(root, d));
  return {
    name: 'recordDecisions',
    check({ key, record, now }) {
      const run = storedRun<RunLike>(record.snapshot);
      if (run?.status !== 'active' || run.value === undefined || !run.context) {
        throw new NothingToResumeError(key.sessionId, describeSession(record).state);
      }
      const root = { ...run, context: run.context };
      checkDecisions(key, root, resolved(root), now);
    },
    async apply({ host, key }) {
      const run = host.runSnapshot();
      if (!run || run.status !== 'active') {
        throw new NothingToResumeError(key.sessionId, host.stateName());
      }
      for (const d of resolved(run)) {
        const runId = runChain(run, d.runId ?? run.context.runId).at(-1)?.context?.runId;
        const common = { callId: d.callId, always: d.always, runId, hold: true };
        host.send(
          d.approve
            ? { type: 'APPROVE', ...common }
            : { type: 'REJECT', message: d.message, ...common },
          'recordDecisions',
        );
      }
      await host.committer.flush();
    },
  };
}
