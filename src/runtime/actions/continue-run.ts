import { NothingToResumeError } from '../../errors/session-errors.js';
import { checkDecisions } from '../decision-checks.js';
import type { RunLike } from '../run-activity.js';
import type { ApprovalDecision } from '../run-state.js';
import { readRunResult, type RunResult } from '../run-result.js';
import type { SessionAction } from '../session-action.js';
import { pausedRuns, runChain, runState } from '../run-tree.js';
import { storedRun } from '../stored-run.js';
import { CONTINUE_RUN_OPTION_NAMES, checkRunOptions } from '../run-call-checks.js';
import type { RunActionOptions } from './run-options.js';
import type { AuditVia } from '../../persistence/audit-log.js';
import { currentBudget } from './send-message.js';

export interface ContinueRunOptions extends Omit<RunActionOptions, 'modelSettings'> {
  /** Approvals and rejections of pending tool calls. */
  decisions?: ApprovalDecision[] | undefined;
  /** Who decides (for the audit log), unless a decision names its own `by`. */
  by?: string | undefined;
  /** Through which path the decisions came. @default 'api' */
  via?: AuditVia | undefined;
}

/**
 * Continues the session's interrupted or crashed run: applies approval decisions, lifts a
 * turn limit or refreshed budget, retries a failed model call (same journal step), or simply
 * lets restored in-flight steps finish (replaying what the journal holds). Throws `NothingToResumeError` when there is no such run.
 * The decisions are checked against the stored run before it is loaded (`checkDecisions`): a
 * stale one, or one on a call past its approval deadline (`ApprovalExpiredError`), changes
 * nothing.
 */
export function continueRun<T = string>(
  options: ContinueRunOptions = {},
): SessionAction<RunResult<T>> {
  checkRunOptions('continueRun()', options, CONTINUE_RUN_OPTION_NAMES);
  return {
    name: 'resume',
    runs: true,
    observe: options,
    check({ key, record, now }) {
      const run = storedRun<RunLike>(record.snapshot);
      if (run?.status !== 'active' || run.value === undefined || !run.context) return;
      checkDecisions(key, { ...run, context: run.context }, options.decisions ?? [], now);
    },
    async apply(ctx) {
      const { host, key, clock } = ctx;
      const run = host.runSnapshot();
      if (!run || run.status !== 'active')
        throw new NothingToResumeError(key.sessionId, host.stateName());
      // The runs standing still: the session's run, or sub-agent runs deeper in its tree.
      const paused = pausedRuns(run);
      // Decisions recorded elsewhere (`recordDecisions`) wait for this resume to run the calls.
      const held = paused.some((r) => runState(r) === 'awaitingApproval' && r.context?.held);
      // Who decided what, written with the save that applies the decisions.
      host.log.audit(
        (options.decisions ?? []).map((d) =>
          ctx.audit.decision(run, d, { by: d.by ?? options.by, via: d.via ?? options.via }),
        ),
      );
      for (const d of options.decisions ?? []) {
        // checked before the load (`check`): each names a call pending in a run of the tree
        const runId = runChain(run, d.runId ?? run.context.runId).at(-1)?.context?.runId;
        host.send(
          d.approve
            ? { type: 'APPROVE', callId: d.callId, always: d.always, runId }
            : { type: 'REJECT', callId: d.callId, message: d.message, always: d.always, runId },
          'resume',
        );
      }
      if (held || paused.some((r) => runState(r) === 'interrupted')) {
        host.send(
          { type: 'CONTINUE', maxTurns: options.maxTurns, budget: currentBudget(ctx) },
          'resume',
        );
      }
      await host.settle();
      return readRunResult<T>(host, clock, options.ephemeral === true);
    },
  };
}
