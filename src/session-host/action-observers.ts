import type { StepProgress } from '../actors/step-progress.js';
import type { Durability } from '../core/durability-policy.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';

/** Cancellation and progress observers of the run an action drives. */
export interface ActionObservers {
  signal?: AbortSignal | undefined;
  /** App metadata the run's tools read from their RunContext. */
  metadata?: Record<string, unknown> | undefined;
  progress?: ((event: StepProgress) => void) | undefined;
  onRunSnapshot?: ((snapshot: RunSnapshot) => void) | undefined;
  /**
   * When this run's changes are saved (see `AgentOptions.durability`); wins over the runtime's
   * and the agent's for this call.
   * @default the runtime's, else the agent's, else 'step'
   */
  durability?: Durability | undefined;
}

/** An action's observers with what the runtime itself adds (never a caller's option). */
export interface RuntimeObservers extends ActionObservers {
  /**
   * The runtime's own way to cancel the run (a `whileBusy: 'interrupt'` message, a cancel from
   * anywhere): aborting it cancels the run as `signal` does, but the steps do not combine it
   * with their own signals (no `AbortSignal.any` per step for runs nobody else cancels).
   */
  cancelSignal?: AbortSignal | undefined;
}
