import type { RunMachineContext } from './run-types.js';

/** When a step first started (epoch ms) and how many restores started it again. */
export interface StepStart {
  at: number;
  restarts: number;
}

/** The run's context with a step's start noted (a `STEP_STARTED` event). */
export function withStepStart(
  context: RunMachineContext,
  event: { step: number; at: number; restarts: number },
): Partial<RunMachineContext> {
  return {
    stepStarts: { ...context.stepStarts, [event.step]: { at: event.at, restarts: event.restarts } },
  };
}
