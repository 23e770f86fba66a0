import {
  InvalidSessionTransitionError,
  RunPausedError,
  WrongAgentError,
} from '../errors/session-errors.js';
import { sessionMachine } from '../machines/session-machine.js';
import type { SessionEvent, SessionMachineContext } from '../machines/session-types.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import type { RunLike } from '../runs/run-activity.js';
import type { SessionAction } from './session-action.js';
import { storedRun } from '../runs/stored-run.js';
import { describeSession, storedRunInFlight } from '../runs/session-view.js';

/**
 * Checks that `agent` (an agent's name) runs the session's stored run, when it has one that
 * is not over (paused or in flight): only that agent has the run's tools, sub-agents and model.
 * Otherwise `WrongAgentError`, and nothing is changed.
 */
export function checkRunAgent(key: SessionKey, record: SessionRecord, agent: string): void {
  const run = storedRun<RunLike>(record.snapshot);
  if (run?.status !== 'active' || !run.context) return;
  const { agentName, runId } = run.context;
  if (agentName !== agent) throw new WrongAgentError(key.sessionId, agentName, agent, runId);
}

/**
 * Checks that `action` fits the stored session before anything is loaded into an actor: no run
 * in flight unless the action runs it, the run's own agent for an action that continues it
 * (`agent`: the name of the runtime's agent), the action's own `check`, and a transition the
 * session machine takes from the stored state. A message to a session whose run is paused or crashed
 * is `RunPausedError` (resume or cancel it first); any other misfit is
 * `InvalidSessionTransitionError`. Nothing is written either way. `live` is the session's
 * state as its live actor holds it, when one was kept at rest as `record` holds it (see
 * `SessionCache.take`): the transition is checked on it instead of on a state resolved afresh
 * from the record (the same answer, without building a machine snapshot for each message).
 */
export function checkActionFits(
  key: SessionKey,
  record: SessionRecord,
  action: SessionAction<unknown>,
  now: number,
  agent: string,
  live?: { can(event: SessionEvent): boolean },
): void {
  const inFlight = storedRunInFlight(record, now);
  if (inFlight && action.runs !== true) {
    throw new InvalidSessionTransitionError(
      key.sessionId,
      action.name,
      `${describeSession(record).state} (a run is in flight)`,
    );
  }
  if (action.continuesRun === true) checkRunAgent(key, record, agent);
  action.check?.({ key, record, now });
  if (!action.event) return;
  const snap = record.snapshot as { value: never; context: SessionMachineContext };
  const resolved =
    live ?? sessionMachine().resolveState({ value: snap.value, context: snap.context });
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
