import { summarize } from '../stats.js';
import type { Row } from '../table.js';

/** How the points' first processes run: simulated on a store, or as child processes. */
export type CrashesMode = 'memory' | 'level' | 'processes';
/** The example whose scenario is explored. */
export type CrashesScenario = 'bills' | 'support';

/** What `crashes-child.ts` is asked to explore. */
export interface CrashesTask {
  scenario: CrashesScenario;
  mode: CrashesMode;
  /** Only these writes of the reference run (the smoke run's few). */
  writes?: number[] | undefined;
}

/** What `crashes-child.ts` prints: one exploration. */
export interface CrashesChildResult {
  /** The durable writes of the reference run. */
  boundaries: number;
  points: number;
  passed: number;
  /** Wall time of the `exploreCrashes` call, ms. */
  ms: number;
}

/** One scenario's explorations: `runs` of each mode, run by run. */
export interface CrashesScenarioRuns {
  scenario: CrashesScenario;
  runs: Record<CrashesMode, CrashesChildResult[]>;
}

export interface CrashesRaw {
  /** Only these writes of each reference run (the smoke run); absent: every write. */
  writes?: number[] | undefined;
  scenarios: CrashesScenarioRuns[];
}

const MODES: [CrashesMode, string][] = [
  ['memory', 'simulated, in-memory store'],
  ['level', 'simulated, LevelDB'],
  ['processes', 'child processes (SIGKILL), LevelDB'],
];

/** Crash points explored per second of one exploration. */
const perSecond = (r: CrashesChildResult): number => r.points / (r.ms / 1000);

/** Time per point of `a` over `b`, run by run (the n-th of each). */
function ratios(a: CrashesChildResult[], b: CrashesChildResult[]): number[] {
  return a.flatMap((run, i) => {
    const other = b[i];
    return other ? [run.ms / run.points / (other.ms / other.points)] : [];
  });
}

/**
 * The rows of the crash exploration bench: per scenario, crash points explored per second in
 * each mode (the whole `exploreCrashes` call, its reference run included), and the time per
 * point in child processes over the simulated modes'.
 */
export function crashesRows(raw: CrashesRaw): Row[] {
  return raw.scenarios.flatMap(({ scenario, runs }) => {
    const first = runs.level[0] ?? runs.memory[0] ?? runs.processes[0];
    const size = first ? `${first.boundaries} writes, ${first.points} points` : 'not run';
    const section = `Crash exploration, the ${scenario} example (${size}${raw.writes ? ', a subset' : ''})`;
    const rows: Row[] = MODES.filter(([mode]) => runs[mode].length > 0).map(([mode, name]) => ({
      section,
      name: `points per second: ${name}`,
      unit: 'mean',
      summary: summarize(runs[mode].map(perSecond)),
    }));
    for (const [mode, name] of MODES.slice(0, 2)) {
      const values = ratios(runs.processes, runs[mode]);
      if (values.length > 0)
        rows.push({
          section,
          name: `time per point: child processes / ${name}`,
          unit: 'x',
          summary: summarize(values),
        });
    }
    return rows;
  });
}

/** Points that failed (the examples' points all pass: a failure is a bug to look at). */
export function crashesFailures(raw: CrashesRaw): string[] {
  return raw.scenarios.flatMap(({ scenario, runs }) =>
    MODES.flatMap(([mode, name]) =>
      runs[mode]
        .filter((r) => r.passed !== r.points)
        .map((r) => `${scenario}, ${name}: ${r.points - r.passed} of ${r.points} points failed`),
    ),
  );
}
