import {
  AlreadyDecidedError,
  ApprovalExpiredError,
  StaleDecisionError,
  UnknownCallError,
} from '../errors/run-errors.js';
import { AmbiguousCallError } from '../errors/ambiguous-call-error.js';
import { agentPathOf } from '../machines/agent-path.js';
import { pendingApproval } from '../machines/call-approvals.js';
import type { CallState } from '../machines/run-types.js';
import { NothingToResumeError } from '../errors/session-errors.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { callFingerprint } from '../runs/call-fingerprint.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import { pausedRuns, runChain, runState, type RunNode } from '../runs/run-tree.js';
import { describeSession } from '../runs/session-view.js';
import { storedRun } from '../runs/stored-run.js';

/**
 * The decision with the run that holds its call, when it names none: a sub-agent's call is
 * decided by its id alone, as an operator reads it. The paused run holding the call pending,
 * else the one holding it decided (so a second decision is told what the first was); a
 * decision that fits no run is returned as it is. Several runs holding it (children whose
 * calls share an id) is `AmbiguousCallError`: which one is meant cannot be told.
 */
export function withRunId(root: RunNode, d: ApprovalDecision): ApprovalDecision {
  if (d.runId !== undefined) return d;
  const holders = (fits: (c: CallState) => boolean) =>
    pausedRuns(root).filter(
      (r) =>
        runState(r) === 'awaitingApproval' &&
        r.context?.calls.some((c) => c.callId === d.callId && fits(c)),
    );
  let found = holders(pendingApproval);
  if (found.length === 0) found = holders((c) => c.needsApproval);
  if (found.length > 1) {
    throw new AmbiguousCallError(
      d.callId,
      found.map((r) => ({ runId: r.context!.runId, agentPath: agentPathOf(r.context!) })),
      { runId: root.context?.runId },
    );
  }
  const runId = found.length === 1 ? found[0]!.context?.runId : undefined;
  return runId === undefined ? d : { ...d, runId };
}

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
 * `ApprovalExpiredError` for one past its deadline, `AlreadyDecidedError` for one decided
 * already) at the first decision that does not fit.
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
    const call = calls.find((c) => c.callId === d.callId && pendingApproval(c));
    if (!call) {
      const decided = calls.find((c) => c.callId === d.callId && c.needsApproval && c.decision);
      if (decided?.decision) {
        throw new AlreadyDecidedError(d.callId, decided.decision, run.context.held === true, scope);
      }
      throw new UnknownCallError(d.callId, scope);
    }
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
