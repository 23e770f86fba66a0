import type { WriteRecord } from './crashing-store.js';
import type { Execution } from './execution-probe.js';
import type { ScenarioOutcome } from './scenario-outcome.js';

/** Where the next process takes the scenario up: at step `index`, retried if it was cut off. */
export interface Resume {
  index: number;
  retry: boolean;
}

/** How one run of the scenario went (the reference, or one crash point's). */
export interface ScenarioRunResult {
  /** The durable writes of the first process, in order (the reference's are the boundaries). */
  writes: WriteRecord[];
  /** Where the first process died: the write, and the scenario step it died in. */
  crashed: { write: WriteRecord; step: number } | undefined;
  executions: Execution[];
  /**
   * Calls the runtime found in doubt after the crash, with what it did (`retried`, `failed`,
   * ...), by `callKey`.
   */
  inDoubt: Map<string, string>;
  /** The calls the scenario decided, in order, by `callKey`. */
  decisions: Map<string, 'approved' | 'rejected'>;
  outcome: ScenarioOutcome | undefined;
  /** What went wrong running the scenario (a step that failed, a recovery that did). */
  errors: string[];
}
