/** A step's start and restarts, recorded in its journal entry. */
export interface StepTiming {
  startedAt: number;
  restarts: number;
}

/** The journal entry fields of a step's timing (`restarts` only when it was restarted). */
export function timingFields(timing: StepTiming): { startedAt: number; restarts?: number } {
  return timing.restarts
    ? { startedAt: timing.startedAt, restarts: timing.restarts }
    : {
        startedAt: timing.startedAt,
      };
}
