import { nextDeadline, pendingApproval } from '../machines/call-approvals.js';
import type { RunMachineContext } from '../machines/run-types.js';
import { pausedRuns, runState, subRunsOf, type RunNode } from './run-tree.js';

/** Run states where a run waits for the outside world; the process may exit there. */
const PAUSED = new Set(['awaitingApproval', 'interrupted']);

/** A run as seen live (an actor snapshot) or stored (a persisted snapshot). */
export type RunLike = RunNode;

/** Whether a call still waiting for approval has a deadline at or before `now`. */
export function overdueApproval(run: RunMachineContext, now: number): boolean {
  const deadline = nextDeadline(run.calls);
  return deadline !== undefined && deadline <= now;
}

/**
 * The earliest deadline of an approval the run waits for (the run's own, or a sub-agent run's
 * it waits for): what a stored record carries as `approvalDeadline` for the store's deadline
 * index.
 */
export function approvalDeadline(run: RunLike | undefined): number | undefined {
  if (run?.value === undefined || run.status !== 'active') return undefined;
  const deadlines = pausedRuns(run).flatMap((r) => {
    const deadline =
      runState(r) === 'awaitingApproval' && r.context ? nextDeadline(r.context.calls) : undefined;
    return deadline === undefined ? [] : [deadline];
  });
  return deadlines.length ? Math.min(...deadlines) : undefined;
}

/**
 * Whether a call of the run (or of a sub-agent run it waits for) waits for a human's decision:
 * what a stored record carries as `awaitingApproval`, which puts the session first in the
 * store's list orders.
 */
export function awaitsApproval(run: RunLike | undefined): boolean {
  if (run?.value === undefined || run.status !== 'active') return false;
  return pausedRuns(run).some(
    (r) => runState(r) === 'awaitingApproval' && (r.context?.calls.some(pendingApproval) ?? false),
  );
}

/**
 * Whether a run is in flight: neither finished nor paused. Loading a session with such a run
 * restarts its steps. A pending approval whose deadline has passed is not paused: its restored
 * durable timer fires at once and rejects the call with reason `timeout` (invariant 7).
 */
export function runInFlight(run: RunLike | undefined, now: number): boolean {
  return inFlight(run, (context) => overdueApproval(context, now));
}

/**
 * Whether a run had steps executing when it was stored: neither finished nor paused, an
 * approval past its deadline still counted as a pause (its timer fires when the run is loaded).
 */
export function stepsExecuting(run: RunLike | undefined): boolean {
  return inFlight(run, () => false);
}

function inFlight(
  run: RunLike | undefined,
  overdue: (context: RunMachineContext) => boolean,
): boolean {
  if (run?.value === undefined || run.status !== 'active') return false;
  const state = runState(run);
  if (state === 'awaitingApproval') return run.context ? overdue(run.context) : false;
  if (state === 'tools') {
    // Waiting only for sub-agent runs that are paused (an approval deep down): paused too.
    const children = Object.keys(run.children ?? {});
    if (children.some((id) => id.startsWith('tool-'))) return true;
    const subRuns = subRunsOf(run);
    return subRuns.length === 0 || subRuns.some((r) => inFlight(r, overdue));
  }
  return !PAUSED.has(state);
}
