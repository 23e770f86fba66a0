import type { WriteRecord } from './crashing-store.js';
import type { LedgerEntry } from './effect-ledger.js';
import type { Execution } from './execution-probe.js';
import type { ScenarioRunResult } from './scenario-run-result.js';

/**
 * What one process of a scenario run did, as it happened: the facts a run's result is made of.
 * A simulated process applies them to the result as they come; a child process prints them,
 * one JSON line each, and the parent applies the ones printed before it killed the child.
 */
export type LifeEvent =
  /** Step `index` of the scenario began (`start`) or returned (`end`). */
  | { type: 'step'; index: number; phase: 'start' | 'end' }
  /** A durable write began (numbered from 0 in the first process). */
  | { type: 'write'; write: WriteRecord }
  /** A tool call's `execute` is about to run. */
  | { type: 'execution'; execution: Execution }
  /** The `index`-th execution of the run returned or threw. */
  | { type: 'finished'; index: number }
  /** The scenario decided a call (by `callKey`). */
  | { type: 'decision'; key: string; decision: 'approved' | 'rejected' }
  /** A call was found in doubt and resolved so (by `callKey`). */
  | { type: 'in-doubt'; key: string; resolution: string }
  /** A tool recorded an effect in the child's ledger. */
  | { type: 'effect'; entry: LedgerEntry }
  /** Something went wrong (a step that failed). */
  | { type: 'error'; message: string }
  /** The child reached its crash point and holds: kill it now. */
  | { type: 'kill' }
  /** The child played the whole scenario without reaching its crash point. */
  | { type: 'done' };

/** Applies a fact of a process to the run's result (effects and the child's own lines aside). */
export function applyLifeEvent(result: ScenarioRunResult, event: LifeEvent): void {
  switch (event.type) {
    case 'write':
      result.writes.push(event.write);
      return;
    case 'execution':
      result.executions.push(event.execution);
      return;
    case 'finished': {
      const execution = result.executions[event.index];
      if (execution) execution.finished = true;
      return;
    }
    case 'decision':
      result.decisions.set(event.key, event.decision);
      return;
    case 'in-doubt':
      result.inDoubt.set(event.key, event.resolution);
      return;
    case 'error':
      result.errors.push(event.message);
      return;
    case 'step':
    case 'effect':
    case 'kill':
    case 'done':
      return; // the process's own course: its parent follows it (followChildLife)
  }
}
