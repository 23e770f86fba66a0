import type { RecoveryExhaustedHook } from '../errors/recovery-exhausted-error.js';

/** The options of an agent about runs that keep crashing (part of `AgentOptions`). */
export interface RecoveryOptions {
  /**
   * How many times a run may be restored after a crash with the same step in flight, that step
   * never finishing (a step that finishes starts the count again). One more and the run ends
   * `failed` with `RecoveryExhaustedError` naming the step instead of running it again: a step
   * that killed its process that often (a tool that runs out of memory, a native crash) would
   * kill every process that recovers it. Small on purpose: crashes from outside (a deploy, a
   * lost machine) rarely hit one step three times. `0`: a step in flight at a crash never runs
   * again. A `SessionRuntime`'s wins over this one.
   * @default 3
   */
  maxRecoveries?: number | undefined;
  /** Called once a run is stopped by `maxRecoveries` (see `RecoveryExhaustedHook`). */
  onRecoveryExhausted?: RecoveryExhaustedHook | undefined;
}
