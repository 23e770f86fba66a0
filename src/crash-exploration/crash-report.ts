import type { CrashAt } from './crashing-store.js';

/** What an invariant found broken at a crash point. */
export type ViolationKind =
  /** A finished effect (in the ledger) happened twice. */
  | 'effect-twice'
  /** An effect of the reference run did not happen, and no call was in doubt to explain it. */
  | 'effect-lost'
  /** A tool call's `execute` finished twice, and the runtime did not retry it as in doubt. */
  | 'ran-twice'
  /** A call ran that waited for a decision not yet made, or that was rejected. */
  | 'ran-without-approval'
  /** A call ran that never ran in the reference run. */
  | 'ran-unexpectedly'
  /** A call that ran in the reference run (approved, or needing none) never finished. */
  | 'call-lost'
  /** The session's final state, output or history differ from the reference run's. */
  | 'outcome-differs'
  /** The scenario or the recovery threw. */
  | 'error'
  /** The crash point was not reached: the run wrote less than the reference run did. */
  | 'not-reached';

export interface Violation {
  kind: ViolationKind;
  message: string;
}

/** One crash point's verdict. */
export interface CrashPointResult {
  point: CrashAt;
  /** The write the crash lands at, named (`save: tool refund finished (call_1_0)`). */
  label: string;
  /** The scenario step the process died in (its index). */
  step: number | undefined;
  passed: boolean;
  violations: Violation[];
  /**
   * Calls the recovered run found in doubt and what became of them (`retried`, `failed`,
   * `asked, fail`): the differences from the reference run their tools' in-doubt policy
   * documents (a failed call's run may end otherwise).
   */
  inDoubt: Record<string, string>;
  /** The replay file written for a failed point (see `replayCrash`). */
  replayFile?: string | undefined;
}

/** The report of `exploreCrashes`. */
export interface CrashReport {
  scenario: string;
  /** The durable writes of the reference run, in order: each one gives three crash points. */
  boundaries: { index: number; method: string; label: string }[];
  /** The points explored (each write, before, during and after it). */
  points: number;
  passed: number;
  failed: number;
  /** Every point's verdict, in order. */
  results: CrashPointResult[];
  /** The failed points' verdicts. */
  failures: CrashPointResult[];
}

/** A report's failures in a few lines, for an assertion's message. */
export function formatCrashFailures(report: CrashReport): string {
  return report.failures
    .map(
      (f) =>
        `${f.point.side} write ${f.point.write} (${f.label}): ${f.violations.map((v) => `${v.kind}: ${v.message}`).join('; ')}${f.replayFile ? ` [replay: ${f.replayFile}]` : ''}`,
    )
    .join('\n');
}
