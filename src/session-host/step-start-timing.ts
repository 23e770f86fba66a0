import type { StepTiming } from '../actors/step-timing.js';
import type { Clock } from '../core/clock.js';
import { withStepStart, type StepStart } from '../machines/step-starts.js';
import type { RunMachineContext } from '../machines/run-types.js';

/**
 * A step's timing as it starts, from what its run's context noted of it (`stepStarts`): a
 * step in flight in a restored snapshot (started again as the session is restored) keeps its
 * first start, one restart more; a step noted but not restoring failed (a model call) and the
 * resumed run tries it again, one retry more; else it starts now.
 */
export function startTiming(
  noted: StepStart | undefined,
  restoring: boolean,
  clock: Pick<Clock, 'now'>,
): StepTiming {
  const retries = (noted?.retries ?? 0) + (noted && !restoring ? 1 : 0);
  return noted && restoring
    ? { startedAt: noted.at, restarts: noted.restarts + 1, retries }
    : { startedAt: clock.now(), restarts: 0, retries };
}

/** The timing a run noted as it started a step (`noteStepStarts`), as the step reads it. */
export function notedTiming(noted: StepStart): StepTiming {
  return { startedAt: noted.at, restarts: noted.restarts, retries: noted.retries ?? 0 };
}

/**
 * The run machine's `noteStepStarts` action, the clock's side of it: the run's context with
 * the start of each of `steps` noted, in the very transition that starts them (a model call,
 * an approval or guardrail check, the turn's tool calls), so no event of its own notes it (a
 * `STEP_STARTED` is sent only by a step restarted on restore, see `SessionHost.stepStarted`).
 */
export function withStepsStarted(
  context: RunMachineContext,
  steps: readonly number[],
  clock: Pick<Clock, 'now'>,
): Pick<RunMachineContext, 'stepStarts'> {
  let noted: Pick<RunMachineContext, 'stepStarts'> = context;
  for (const step of steps) {
    const timing = startTiming(noted.stepStarts?.[step], false, clock);
    const { startedAt: at, restarts, retries } = timing;
    noted = withStepStart(noted, { step, at, restarts, retries });
  }
  return noted;
}
