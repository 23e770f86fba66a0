/**
 * The crash exploration bench (issue 45): `exploreCrashes` on the bills and support examples'
 * scenarios, every write of the reference run crashed before, during and after it, simulated
 * (in-memory store, LevelDB) and with each point's first process a real child process killed
 * with SIGKILL. Each exploration is a fresh process (`crashes-child.ts`, compiled with the
 * package as built, plain `node`), the modes interleaved run by run.
 */
import { buildScripts } from '../built-scripts.js';
import { runNodeScript } from '../child.js';
import type { BenchPart } from '../table.js';
import {
  crashesFailures,
  crashesRows,
  type CrashesChildResult,
  type CrashesMode,
  type CrashesRaw,
  type CrashesScenario,
  type CrashesScenarioRuns,
  type CrashesTask,
} from './crashes-figures.js';

const SCENARIOS: CrashesScenario[] = ['bills', 'support'];
const MODES: CrashesMode[] = ['memory', 'level', 'processes'];
/** The smoke run's writes: the approval's save and the tool's start, 6 points a mode. */
const SMOKE_WRITES = [4, 7];

/** Both scenarios, every mode, `runs` fresh processes each. */
export async function runCrashes(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<CrashesRaw> {
  const writes = config.smoke ? SMOKE_WRITES : undefined;
  const built = await buildScripts(['crashes-child.ts']);
  try {
    const scenarios: CrashesScenarioRuns[] = SCENARIOS.map((scenario) => ({
      scenario,
      runs: { memory: [], level: [], processes: [] },
    }));
    for (let run = 0; run < config.runs; run++) {
      for (const s of scenarios) {
        for (const mode of MODES) {
          log(`crashes: ${s.scenario}, ${mode}, run ${run + 1}/${config.runs}`);
          const task: CrashesTask = { scenario: s.scenario, mode, writes };
          s.runs[mode].push(
            await runNodeScript<CrashesChildResult>(built.path('crashes-child.ts'), [
              JSON.stringify(task),
            ]),
          );
        }
      }
    }
    return { ...(writes ? { writes } : {}), scenarios };
  } finally {
    await built.cleanup();
  }
}

/**
 * `npm run bench -- --crashes`: the rows and raw figures. Small with `--smoke` (two writes of
 * each scenario). No targets: the issue names the figures, not limits.
 */
export async function crashesPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<BenchPart<CrashesRaw>> {
  const raw = await runCrashes(config, log);
  return { kind: 'crashes', rows: crashesRows(raw), targets: [], raw, notes: crashesFailures(raw) };
}
