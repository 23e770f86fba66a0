/**
 * The crash exploration bench (issue 45), one exploration in a fresh process of its own. Usage:
 * crashes-child.js '<CrashesTask as JSON>', compiled with the package as built (see
 * built-scripts.ts): `exploreCrashes` of the bills or support example's scenario, simulated on
 * the in-memory store or on LevelDB, or with each point's first process a real child killed
 * with SIGKILL (the child imports the compiled example module, with plain `node`). Prints one
 * JSON line (`CrashesChildResult`): the points explored, passed, and the wall time of the whole
 * call (the reference run included).
 */
import { fileURLToPath } from 'node:url';
import { exploreCrashes, type ExploreCrashesOptions } from '../src/testing.js';
import type { Agent } from '../src/index.js';
import { bills } from '../examples/agents/bills.js';
import { support } from '../examples/agents/support.js';
import type {
  CrashesChildResult,
  CrashesScenario,
  CrashesTask,
} from './workloads/crashes-figures.js';

/** The examples' scenarios, with the module and export a child process imports. */
const SCENARIOS: Record<
  CrashesScenario,
  {
    agent: Agent;
    module: string;
    export: string;
    steps: ({ send: string } | { approve: string })[];
  }
> = {
  bills: {
    agent: bills,
    module: '../examples/agents/bills.js',
    export: 'bills',
    steps: [{ send: 'Pay my ACME Power bill' }, { approve: 'pay_bill' }],
  },
  support: {
    agent: support,
    module: '../examples/agents/support.js',
    export: 'support',
    steps: [{ send: 'Refund order A-77 and tell me where it is' }, { approve: 'refund' }],
  },
};

async function main(task: CrashesTask): Promise<void> {
  const s = SCENARIOS[task.scenario];
  const options: ExploreCrashesOptions = {
    ...(task.writes ? { writes: task.writes } : {}),
    ...(task.mode === 'processes'
      ? {
          processes: {
            module: fileURLToPath(new URL(s.module, import.meta.url)),
            export: s.export,
          },
        }
      : { stores: task.mode }),
  };
  const started = performance.now();
  const report = await exploreCrashes(s.agent, { name: task.scenario, steps: s.steps }, options);
  const ms = performance.now() - started;
  const result: CrashesChildResult = {
    boundaries: report.boundaries.length,
    points: report.points,
    passed: report.passed,
    ms,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main(JSON.parse(process.argv[2] ?? '{}') as CrashesTask);
