import type { RunMachineContext } from './run-types.js';

/**
 * When a step first started (epoch ms), how many restores started it again and how many times
 * it was tried again after it failed (a model call, resumed; absent: never).
 */
export interface StepStart {
  at: number;
  restarts: number;
  retries?: number | undefined;
}

/**
 * The run's context with a step's start noted: as the run starts the step (its
 * `noteStepStarts` action), or again by a `STEP_STARTED` event when a restore restarts it.
 */
export function withStepStart(
  context: Pick<RunMachineContext, 'stepStarts'>,
  event: { step: number; at: number; restarts: number; retries?: number | undefined },
): Pick<RunMachineContext, 'stepStarts'> {
  const start: StepStart = { at: event.at, restarts: event.restarts };
  if (event.retries) start.retries = event.retries;
  return { stepStarts: { ...context.stepStarts, [event.step]: start } };
}
