import type { ApprovalCheckOutput } from './step-actor-io.js';
import type { CallState, RunMachineContext } from './run-types.js';

/**
 * Pure helpers of the run machine for the approvals of a turn's calls: which calls wait, the
 * journaled approval check applied (with the standing `always` decisions), decisions, timeouts
 * and what a rejected call tells the model.
 */

/** Whether a call waits for a human's decision. */
export const pendingApproval = (c: CallState): boolean =>
  c.needsApproval && c.decision === undefined;

/** The earliest deadline of the calls still waiting for an approval decision, if any. */
export const nextDeadline = (calls: readonly CallState[]): number | undefined => {
  const deadlines = calls
    .filter(pendingApproval)
    .flatMap((c) => (c.deadline === undefined ? [] : [c.deadline]));
  return deadlines.length ? Math.min(...deadlines) : undefined;
};

/** The calls with the approval check's outcome: pending, or decided by a standing decision. */
export function withCheckedApprovals(
  context: RunMachineContext,
  output: ApprovalCheckOutput,
): CallState[] {
  const standing = { ...context.standingDecisions, ...context.newDecisions };
  return context.calls.map((call) => {
    // By step: call ids may repeat (decisions journaled by 0.1 have no step).
    const d = output.decisions.find((x) =>
      x.step === undefined ? x.callId === call.callId : x.step === call.step,
    );
    if (d?.permission === 'deny') {
      // Denied by the permission policy: never runs; the model reads why.
      return {
        ...call,
        permission: 'deny' as const,
        decision: 'rejected' as const,
        reason: 'denied' as const,
        message: `Permission denied for "${call.name}": ${d.denyReason ?? 'no reason given'}`,
      };
    }
    const c = d?.permission ? { ...call, permission: d.permission } : call;
    if (!d?.needsApproval) return c;
    const always = standing[c.name];
    if (always) {
      return {
        ...c,
        needsApproval: true,
        decision: always === 'approve' ? ('approved' as const) : ('rejected' as const),
        reason: 'always' as const,
      };
    }
    return { ...c, needsApproval: true, deadline: d.deadline };
  });
}

/** The calls whose deadline passed by `firedAt`, rejected with reason `timeout`. */
export function rejectOverdue(calls: CallState[], firedAt: number): CallState[] {
  return calls.map((c) =>
    pendingApproval(c) && c.deadline !== undefined && c.deadline <= firedAt
      ? { ...c, decision: 'rejected' as const, reason: 'timeout' as const }
      : c,
  );
}

/** What the model is shown instead of a rejected call's result (none for other calls). */
export function rejectionOf(call: CallState): { reason: string; message: string } | undefined {
  if (call.decision !== 'rejected') return undefined;
  return {
    reason: call.reason ?? 'user',
    message:
      call.message ??
      (call.reason === 'timeout'
        ? `The call to "${call.name}" was not approved before its deadline and did not run.`
        : `The call to "${call.name}" was rejected and did not run.`),
  };
}

/** A human's decision on `callId`; with `always`, on every pending call of that tool too. */
export function decide(
  context: RunMachineContext,
  callId: string,
  decision: 'approved' | 'rejected',
  always: boolean | undefined,
  message?: string,
): Partial<RunMachineContext> {
  const call = context.calls.find((c) => c.callId === callId);
  const newDecisions =
    always && call
      ? {
          ...context.newDecisions,
          [call.name]: decision === 'approved' ? ('approve' as const) : ('reject' as const),
        }
      : context.newDecisions;
  return {
    newDecisions,
    calls: context.calls.map((c) => {
      if (c.callId === callId) return { ...c, decision, reason: 'user' as const, message };
      if (always && call && c.name === call.name && pendingApproval(c)) {
        return { ...c, decision, reason: 'always' as const, message };
      }
      return c;
    }),
  };
}
