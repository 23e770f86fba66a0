/**
 * When a session's changes must reach the store: on every step (`'step'`), around tool calls
 * (`'tools'`) or at the run's pauses and end (`'run'`). Between those points the changes wait
 * in memory (the session log and the actor) and go out with the next save, still as one
 * atomic, versioned batch, so nothing but the timing of the saves differs between the modes.
 */

/**
 * How much of a run is durable before it goes on, i.e. what a SIGKILL can make run again:
 * - `'step'`: every step is saved before the next starts; only the step in flight at a crash
 *   runs again.
 * - `'tools'`: saved before a tool call starts and as soon as it returns, and at the run's
 *   pauses and end; a model call since the last tool boundary may run again, a tool call that
 *   returned never does.
 * - `'run'`: saved only at the run's pauses (approval, interruption, deadline wait) and end;
 *   after a crash the run goes on from the last pause, or (none yet) is not stored at all and
 *   the caller sends its message again; tools run again too (each reads its call id as an
 *   idempotency key).
 */
export type Durability = 'step' | 'tools' | 'run';

export const DURABILITY_MODES: readonly Durability[] = ['step', 'tools', 'run'];

/** What option checks say a bad value should have been. */
export const DURABILITY_EXPECTED = "'step', 'tools' or 'run'";

export const isDurability = (value: unknown): value is Durability =>
  DURABILITY_MODES.includes(value as Durability);

/** The kind of step about to do fresh work (see `JournaledStepDeps.durable`). */
export type StepKind = 'model' | 'tool' | 'approval' | 'guardrail';

/** What the policy reads of the loaded session when the actor changes. */
export interface DurabilityProbes {
  /** Whether the session's run is in flight (neither paused nor ended). */
  runInFlight(): boolean;
  /** Whether a tool call's journal entry waits for a save. */
  toolResultPending(): boolean;
}

/**
 * Decides, for one loaded session, which changes are saved at once and which steps wait for
 * the saves before they start. A change made while no run is in flight (the run paused or
 * ended, a session action) is always saved at once; closing the session saves whatever waits.
 */
export class DurabilityPolicy {
  constructor(
    readonly mode: Durability,
    private readonly probes: DurabilityProbes,
  ) {}

  /** Whether the change the actor just made must be saved now (else it waits in memory). */
  savesOnChange(): boolean {
    if (this.mode === 'step' || !this.probes.runInFlight()) return true;
    return this.mode === 'tools' && this.probes.toolResultPending();
  }

  /** Whether a step of `kind` must wait until everything recorded so far is saved. */
  savesBefore(kind: StepKind): boolean {
    switch (this.mode) {
      case 'step':
        return true;
      case 'tools':
        return kind === 'tool';
      case 'run':
        return false;
    }
  }
}
