import type { StepTiming } from '../actors/step-timing.js';
import type { Clock } from '../core/clock.js';
import type { StepStart } from '../machines/step-starts.js';

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
