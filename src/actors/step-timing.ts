import type { StepRef } from '../errors/recovery-exhausted-error.js';

/**
 * What a step says of itself as it starts (its journal step aside): its kind, its name (a
 * model step's is its agent's, filled in by the host) and a tool call's id. A run stopped by
 * `maxRecoveries` names its step with it.
 */
export type StartingStep = Omit<StepRef, 'step' | 'name'> & { name?: string | undefined };

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
