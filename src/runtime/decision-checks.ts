import { StaleDecisionError, UnknownCallError } from '../errors/run-errors.js';
import type { SessionKey } from '../persistence/session-store.js';
import { callFingerprint } from './call-fingerprint.js';
import type { ApprovalDecision } from './run-state.js';
import type { RunSnapshot } from './session-host.js';
import { stateName } from './session-status.js';
import { runChain } from './run-tree.js';

/** The run `runId` of the tree under `root` (the session's run or a sub-agent run). */
function decidedRun(root: RunSnapshot, runId: string): RunSnapshot | undefined {
  return runChain(root, runId).at(-1) as RunSnapshot | undefined;
}

/**
 * Checks approval decisions against the session's current run before any of them is applied:
 * the run must be awaiting approval, be the run each decision was made on, and have the call
 * pending with the same name and arguments. Throws `StaleDecisionError` (or
 * `UnknownCallError` for a call that is not waiting) at the first decision that does not fit.
 */
export function checkDecisions(
  key: SessionKey,
  root: RunSnapshot,
  decisions: readonly ApprovalDecision[],
): void {
  for (const d of decisions) {
    // A decision about a sub-agent's call names that sub-agent's run.
    const run = d.runId === undefined ? root : decidedRun(root, d.runId);
    if (!run) {
      throw new StaleDecisionError(
        d.callId,
        `it was made on run ${d.runId}, which is not the session's run ${root.context.runId} or one of its sub-agent runs`,
        { sessionId: key.sessionId, runId: root.context.runId },
      );
    }
    const { runId, calls } = run.context;
    const scope = { sessionId: key.sessionId, runId };
    const state = stateName(run.value);
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
  }
}
