import {
  ApprovalExpiredError,
  StaleDecisionError,
  UnknownCallError,
} from '../errors/run-errors.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { SessionKey } from '../persistence/session-store.js';
import { callFingerprint } from './call-fingerprint.js';
import type { ApprovalDecision } from './run-state.js';
import { stateName } from './session-status.js';

type StateValue = Parameters<typeof stateName>[0];

/**
 * Checks approval decisions against the session's current run before any of them is applied:
 * the run must be awaiting approval, be the run each decision was made on, and have the call
 * pending with the same name and arguments, its approval deadline (if any) after `now`.
 * Throws `StaleDecisionError` (`UnknownCallError` for a call that is not waiting,
 * `ApprovalExpiredError` for one past its deadline) at the first decision that does not fit.
 */
export function checkDecisions(
  key: SessionKey,
  run: { value: StateValue; context: RunMachineContext },
  decisions: readonly ApprovalDecision[],
  now: number,
): void {
  const { runId, calls } = run.context;
  const scope = { sessionId: key.sessionId, runId };
  const state = stateName(run.value);
  for (const d of decisions) {
    if (d.runId !== undefined && d.runId !== runId) {
      throw new StaleDecisionError(
        d.callId,
        `it was made on run ${d.runId}, the session's run is ${runId}`,
        scope,
      );
    }
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
