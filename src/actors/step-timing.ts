import type { StepRef } from '../errors/recovery-exhausted-error.js';

/**
 * What a step says of itself as it starts (its journal step aside): its kind, its name (a
 * model step's is its agent's, filled in by the host) and a tool call's id. A run stopped by
 * `maxRecoveries` names its step with it.
 */
export type StartingStep = Omit<StepRef, 'step' | 'name'> & { name?: string | undefined };

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
