import type { StepRef } from '../errors/recovery-exhausted-error.js';
import type { JournalEntry } from '../persistence/session-store.js';

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
function timingFields(timing: StepTiming): {
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

/**
 * The journal entry of a step that ended `at`: what it produced, and its timing when it has one
 * (a tripwire recorded for a model step that never called the model has none).
 */
export function stepEntry(
  input: { runId: string; step: number },
  kind: JournalEntry['kind'],
  output: unknown,
  at: number,
  timing?: StepTiming,
): JournalEntry {
  return {
    runId: input.runId,
    step: input.step,
    kind,
    output,
    at,
    ...(timing ? timingFields(timing) : {}),
  };
}
