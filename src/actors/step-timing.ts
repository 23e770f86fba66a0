/** A step's start, restarts and retries, recorded in its journal entry. */
export interface StepTiming {
  startedAt: number;
  restarts: number;
  retries?: number | undefined;
}

/** The journal entry fields of a step's timing (`restarts`, `retries` only when there were any). */
export function timingFields(timing: StepTiming): {
  startedAt: number;
  restarts?: number;
  retries?: number;
} {
  return {
    startedAt: timing.startedAt,
    ...(timing.restarts ? { restarts: timing.restarts } : {}),
    ...(timing.retries ? { retries: timing.retries } : {}),
  };
}
