import { InvalidSessionTransitionError, RunPausedError } from '../errors/session-errors.js';
import { sessionMachine } from '../machines/session-machine.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import type { SessionAction } from './session-action.js';
import { describeSession, storedRunInFlight } from './session-view.js';

/**
 * Checks that `action` fits the stored session before anything is loaded into an actor: no run
 * in flight unless the action runs it, the action's own `check`, and a transition the session
 * machine takes from the stored state. A message to a session whose run is paused or crashed
 * is `RunPausedError` (resume or cancel it first); any other misfit is
 * `InvalidSessionTransitionError`. Nothing is written either way.
 */
export function checkActionFits(
  key: SessionKey,
  record: SessionRecord,
  action: SessionAction<unknown>,
  now: number,
): void {
  const inFlight = storedRunInFlight(record, now);
  if (inFlight && action.runs !== true) {
    throw new InvalidSessionTransitionError(
      key.sessionId,
      action.name,
      `${describeSession(record).state} (a run is in flight)`,
    );
  }
  action.check?.({ key, record, now });
  if (!action.event) return;
  const snap = record.snapshot as { value: never; context: SessionMachineContext };
  const resolved = sessionMachine.resolveState({ value: snap.value, context: snap.context });
  if (resolved.can(action.event)) return;
  // Described only here, for the error: the view costs more than the check itself.
  const view = describeSession(record);
  if (action.event.type === 'SEND_MESSAGE' && view.run) {
    const run = view.run;
    const reason = inFlight
      ? 'in flight: a crash stopped it, or another process runs it'
      : run.state === 'awaitingApproval'
        ? 'waiting for an approval'
        : `interrupted: ${run.context.interruption ?? run.state}`;
    throw new RunPausedError(key.sessionId, action.name, reason, run.context.runId);
  }
  throw new InvalidSessionTransitionError(key.sessionId, action.name, view.state);
}
