import type { RunMachineContext } from '../machines/run-types.js';
import type {
  SessionConfig,
  SessionMachineContext,
  RunSummary,
} from '../machines/session-types.js';
import type { SessionInfo, SessionRecord, UsageTotals } from '../persistence/session-store.js';
import { runInFlight } from './run-activity.js';
import type { RunOwner } from './run-owner.js';
import { runStatusOf, usageSoFar, type RunStatusView } from './run-status.js';
import { stateName } from './session-status.js';
import { storedRun } from './stored-run.js';

type StateValue = Parameters<typeof stateName>[0];

interface PersistedRun {
  status?: string;
  value?: StateValue;
  context?: RunMachineContext;
}

/** A stored session as callers read it, without loading any actor. */
export interface SessionView extends SessionInfo {
  /** The session machine's state, e.g. `active.idle` or `suspended`. */
  state: string;
  config: SessionConfig;
  historyFrom: number;
  standingDecisions: SessionMachineContext['standingDecisions'];
  lastRun: RunSummary | undefined;
  /** The run in progress or paused, if any. */
  run: { state: string; context: RunMachineContext } | undefined;
  /**
   * What the run in progress is doing (`running`, `crashed`, `awaitingApproval`,
   * `interrupted`), else how the last run ended (`completed`, `failed` with its `error`,
   * `cancelled`); with its usage so far and its pending approvals. A failed run leaves the
   * session `active`: the next message starts a new run.
   */
  runStatus: RunStatusView | undefined;
  /** `usage` (the ended runs' totals) plus what the run in progress used so far. */
  usageSoFar: UsageTotals;
}

function persistedRun(record: SessionRecord): PersistedRun | undefined {
  return storedRun<PersistedRun>(record.snapshot);
}

/**
 * The view of a stored session. `owner` says whether the process running its run is alive
 * (see `runOwner`): a run with steps executing whose owner is `gone` reads as `crashed`.
 */
export function describeSession(record: SessionRecord, owner: RunOwner = 'unknown'): SessionView {
  const { snapshot, machineVersion: _v, ...info } = record;
  const snap = snapshot as { value: StateValue; context: SessionMachineContext };
  const run = persistedRun(record);
  const runStatus = runStatusOf(run, snap.context.lastRun, owner);
  return {
    ...info,
    state: stateName(snap.value),
    config: snap.context.config,
    historyFrom: snap.context.historyFrom,
    standingDecisions: snap.context.standingDecisions,
    lastRun: snap.context.lastRun,
    run:
      run?.value !== undefined && run.context
        ? { state: stateName(run.value), context: run.context }
        : undefined,
    runStatus,
    usageSoFar: usageSoFar(info.usage, runStatus),
  };
}

/** A stored run that is neither finished nor paused: loading it would resume its steps. */
export function storedRunInFlight(record: SessionRecord, now: number): boolean {
  return runInFlight(persistedRun(record), now);
}
