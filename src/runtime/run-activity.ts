import { nextDeadline } from '../machines/run-machine.js';
import type { RunMachineContext } from '../machines/run-types.js';
import { stateName } from './session-status.js';

type StateValue = Parameters<typeof stateName>[0];

/** Run states where a run waits for the outside world; the process may exit there. */
const PAUSED = new Set(['awaitingApproval', 'interrupted']);

/** A run as seen live (an actor snapshot) or stored (a persisted snapshot). */
export interface RunLike {
  status?: string | undefined;
  value?: StateValue | undefined;
  context?: RunMachineContext | undefined;
}

/** Whether a call still waiting for approval has a deadline at or before `now`. */
export function overdueApproval(run: RunMachineContext, now: number): boolean {
  const deadline = nextDeadline(run.calls);
  return deadline !== undefined && deadline <= now;
}

/**
 * The earliest deadline of an approval the run waits for (a run awaiting approval only): what
 * a stored record carries as `approvalDeadline` for the store's deadline index.
 */
export function approvalDeadline(run: RunLike | undefined): number | undefined {
  if (run?.value === undefined || run.status !== 'active' || !run.context) return undefined;
  return stateName(run.value) === 'awaitingApproval' ? nextDeadline(run.context.calls) : undefined;
}

/**
 * Whether a run is in flight: neither finished nor paused. Loading a session with such a run
 * restarts its steps. A pending approval whose deadline has passed is not paused: its restored
 * durable timer fires at once and rejects the call with reason `timeout` (invariant 7).
 */
export function runInFlight(run: RunLike | undefined, now: number): boolean {
  if (run?.value === undefined || run.status !== 'active') return false;
  const state = stateName(run.value);
  if (state === 'awaitingApproval') return run.context ? overdueApproval(run.context, now) : false;
  return !PAUSED.has(state);
}
