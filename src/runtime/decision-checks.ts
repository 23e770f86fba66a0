import {
  ApprovalExpiredError,
  StaleDecisionError,
  UnknownCallError,
} from '../errors/run-errors.js';
import { NothingToResumeError } from '../errors/session-errors.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { callFingerprint } from './call-fingerprint.js';
import type { ApprovalDecision } from './run-state.js';
import { runChain, runState, type RunNode } from './run-tree.js';
import { describeSession } from './session-view.js';
import { storedRun } from './stored-run.js';

/**
 * Checks decisions made outside the process that runs the session (the command line's
 * `recordDecisions`, a store's decision inbox through `submitDecisions`) against its stored
 * record: a session without a paused run is `NothingToResumeError`, then `checkDecisions`.
 * `decisions` reads the stored run, for decisions that name their run only by the call.
 * Returns the decisions checked.
 */
export function checkStoredDecisions(
  key: SessionKey,
  record: SessionRecord,
  decisions: (root: RunNode) => readonly ApprovalDecision[],
  now: number,
): { runId: string; decisions: readonly ApprovalDecision[] } {
  const run = storedRun<RunNode>(record.snapshot);
  if (run?.status !== 'active' || run.value === undefined || !run.context) {
    throw new NothingToResumeError(key.sessionId, describeSession(record).state);
  }
  const root = { ...run, context: run.context };
  const checked = decisions(root);
  checkDecisions(key, root, checked, now);
  return { runId: run.context.runId, decisions: checked };
}

/**
 * Checks approval decisions against the session's current run (stored or live) before any of
 * them is applied. Each decision names the run it was made on: the session's run or one of
 * its sub-agent runs (absent: the session's run). That run must be awaiting approval and have
 * the call pending with the same name and arguments, its approval deadline (if any) after
 * `now`. Throws `StaleDecisionError` (`UnknownCallError` for a call that is not waiting,
 * `ApprovalExpiredError` for one past its deadline) at the first decision that does not fit.
 */
export function checkDecisions(
  key: SessionKey,
  root: RunNode & { context: NonNullable<RunNode['context']> },
  decisions: readonly ApprovalDecision[],
  now: number,
): void {
  for (const d of decisions) {
    const run = d.runId === undefined ? root : runChain(root, d.runId).at(-1);
    if (!run?.context) {
      throw new StaleDecisionError(
        d.callId,
        `it was made on run ${d.runId}, the session's run is ${root.context.runId}`,
        { sessionId: key.sessionId, runId: root.context.runId },
      );
    }
    const { runId, calls } = run.context;
    const scope = { sessionId: key.sessionId, runId };
    const state = runState(run);
    if (state !== 'awaitingApproval') {
      throw new StaleDecisionError(
        d.callId,
        `run ${runId} is not awaiting approval (${run.context.interruption ?? state})`,
        scope,
      );
    }
    const call = calls.find((c) => c.callId === d.callId && c.needsApproval && !c.decision);
    if (!call) throw new UnknownCallError(d.callId, scope);
    if (
      d.fingerprint !== undefined &&
      d.fingerprint !== callFingerprint(call.name, call.arguments)
    ) {
      throw new StaleDecisionError(
        d.callId,
        `the pending call "${call.name}" has other arguments than the one decided`,
        scope,
      );
    }
    if (call.deadline !== undefined && call.deadline <= now) {
      throw new ApprovalExpiredError(d.callId, call.deadline, scope);
    }
  }
}
