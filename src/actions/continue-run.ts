import { NothingToResumeError } from '../errors/session-errors.js';
import { checkDecisions, withRunId } from './decision-checks.js';
import type { RunLike } from '../runs/run-activity.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import { readRunResult, type RunResult } from '../session-host/run-result.js';
import type { SessionAction } from './session-action.js';
import { pausedRuns, runState, type RunNode } from '../runs/run-tree.js';
import { storedRun } from '../runs/stored-run.js';
import { CONTINUE_RUN_OPTION_NAMES, checkRunOptions } from './run-call-checks.js';
import type { RunActionOptions } from './run-options.js';
import type { AuditVia } from '../persistence/audit-log.js';
import { currentBudget } from './send-message.js';
import { sendDecisions } from './send-decisions.js';

export interface ContinueRunOptions extends Omit<RunActionOptions, 'modelSettings' | 'messageId'> {
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
 * A decision that names no run is on the run of the tree holding its call (a sub-agent's call
 * is decided by its id alone).
 * The decisions are checked against the stored run before it is loaded (`checkDecisions`): a
 * stale one, or one on a call past its approval deadline (`ApprovalExpiredError`), changes
 * nothing.
 */
export function continueRun<T = string>(
  options: ContinueRunOptions = {},
): SessionAction<RunResult<T>> {
  checkRunOptions('continueRun()', options, CONTINUE_RUN_OPTION_NAMES);
  return continueAction<T>(options);
}

/** The session action of `continueRun` for options checked at their call (not checked again). */
export function continueAction<T = string>(
  options: ContinueRunOptions = {},
): SessionAction<RunResult<T>> {
  // A decision naming no run is on the run of the tree that holds its call.
  const resolved = (root: RunNode) => (options.decisions ?? []).map((d) => withRunId(root, d));
  return {
    name: 'resume',
    runs: true,
    continuesRun: true,
    observe: options,
    check({ key, record, now }) {
      const run = storedRun<RunLike>(record.snapshot);
      if (run?.status !== 'active' || run.value === undefined || !run.context) return;
      const root = { ...run, context: run.context };
      checkDecisions(key, root, resolved(root), now);
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
      sendDecisions(ctx, run, resolved(run), options, { cause: 'resume', hold: false });
      for (const r of paused) {
        // a run whose model call failed calls the model again
        if (r.context?.interruption === 'error') host.observer?.retry(r.context.runId);
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
