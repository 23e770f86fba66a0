import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Agent } from '../agent/agent.js';
import { ScenarioFailedError } from '../errors/scenario-failed-error.js';
import type { FakeClock } from '../testing/fake-clock.js';
import { checkScenario, type CrashScenario } from './crash-scenario.js';
import { checkInvariants, type ObservedRun } from './crash-invariants.js';
import type { CrashPointResult, CrashReport } from './crash-report.js';
import { readReplayFile, writeReplayFile } from './crash-replay-file.js';
import { openSpace, type CrashStores } from './crash-stores.js';
import { CRASH_SIDES, type CrashAt, type CrashSide } from './crashing-store.js';
import type { EffectLedger } from './effect-ledger.js';
import { checkExploreOptions } from './explore-options.js';
import type { RuntimeFaults } from './execution-probe.js';
import { ScenarioRun, type InDoubtAnswer } from './scenario-run.js';
import { runChildLife, type ChildLife, type CrashProcesses } from './child-life.js';
import { checkChildModule, childModuleNames } from './child-module.js';

export interface ExploreCrashesOptions {
  /** The ledger the scenario's tools record their effects in (cleared before each run). */
  effects?: EffectLedger | undefined;
  /** The agent's clock, if it has a fake one: set back to its time at the call before each run, moved by `advance` steps. */
  clock?: FakeClock | undefined;
  /** Where each run keeps its data. @default 'memory' */
  stores?: CrashStores | undefined;
  /** Which sides of each write to crash on. @default ['before', 'during', 'after'] */
  sides?: readonly CrashSide[] | undefined;
  /** Only these writes of the reference run (their indexes). @default every write */
  writes?: readonly number[] | undefined;
  /** What an operator answers for a call in doubt whose tool asks (`onInterrupted: 'ask'`). @default 'fail' */
  inDoubt?: InDoubtAnswer | undefined;
  /** Where a failed point's replay file is written. @default `<tmpdir>/agentstate-crash-replays` */
  replayDir?: string | undefined;
  /**
   * Runs each point's first process as a real child process, killed with SIGKILL at its point
   * (LevelDB in a temp folder: `stores` must be absent or `'level'`); the process that
   * recovers is this one. The reference run stays in this process.
   */
  processes?: CrashProcesses | undefined;
  /** Test-only: faults injected into the runtime, for tests that check the exploration finds them. @internal */
  faults?: RuntimeFaults | undefined;
}

interface Prepared {
  agent: Agent;
  scenario: CrashScenario;
  options: ExploreCrashesOptions;
  clockStart: number;
}

/** The first process of a point in a child (`undefined`: simulated, or the reference run). */
function childLife(
  p: Prepared,
  path: string | undefined,
  crashAt: CrashAt | undefined,
): ChildLife | undefined {
  const processes = p.options.processes;
  if (!processes || !crashAt || path === undefined) return undefined;
  const { options } = p;
  return (at) =>
    runChildLife(
      {
        module: resolve(processes.module),
        ...childModuleNames(processes, options),
        clockStart: p.clockStart,
        scenario: p.scenario,
        crashAt: at,
        path,
        inDoubt: options.inDoubt ?? 'fail',
        faults: options.faults,
      },
      processes.timeoutMs ?? 60_000,
    );
}

async function runOnce(p: Prepared, crashAt: CrashAt | undefined): Promise<ObservedRun> {
  const stores = p.options.processes ? 'level' : (p.options.stores ?? 'memory');
  const space = await openSpace(stores, p.options.clock);
  const run = await new ScenarioRun({
    agent: p.agent,
    scenario: p.scenario,
    space,
    child: childLife(p, space.path, crashAt),
    effects: p.options.effects,
    clock: p.options.clock,
    clockStart: p.clockStart,
    crashAt,
    inDoubt: p.options.inDoubt ?? 'fail',
    faults: p.options.faults,
  }).run();
  return { run, effects: [...(p.options.effects?.entries() ?? [])] };
}

/** Runs the scenario once, uncrashed: the reference every point is compared with. */
async function referenceRun(p: Prepared): Promise<ObservedRun> {
  const reference = await runOnce(p, undefined);
  if (reference.run.errors.length > 0 || !reference.run.outcome)
    throw new ScenarioFailedError(p.scenario.name, reference.run.errors.join('; ') || 'no outcome');
  return reference;
}

async function explorePoint(
  p: Prepared,
  reference: ObservedRun,
  point: CrashAt,
  label: string,
): Promise<CrashPointResult> {
  const crashed = await runOnce(p, point);
  const violations = checkInvariants(reference, crashed);
  return {
    point,
    label,
    step: crashed.run.crashed?.step,
    passed: violations.length === 0,
    violations,
    inDoubt: Object.fromEntries(crashed.run.inDoubt),
  };
}

/**
 * Crashes a scenario of `agent` at every durable write its run makes, and checks each crash.
 * The scenario runs once uncrashed (the reference); then, for each write of that run and each
 * side of it (before it reaches the store, during it, after it landed), it runs again in a
 * simulated process that dies there: its store handle is dropped, the store opened again by a
 * new process, the run recovered and resumed, the step cut off retried as a client would, and
 * the rest played. Each point must keep the invariants (see `checkInvariants`): no finished
 * effect twice, no approved call lost, no call run without its approval, the same outcome as
 * the reference (or the difference a call in doubt documents). A failed point gets a replay
 * file that `replayCrash` runs alone.
 *
 * @example
 * const report = await exploreCrashes(agent, { name: 'refund', steps: [{ send: 'Refund A-77' }, { approve: 'refund' }] }, { effects });
 * expect(report.failures).toEqual([]);
 */
export async function exploreCrashes(
  agent: Agent,
  scenario: CrashScenario,
  options: ExploreCrashesOptions = {},
): Promise<CrashReport> {
  checkScenario(scenario);
  checkExploreOptions(options);
  if (options.processes)
    await checkChildModule(
      resolve(options.processes.module),
      childModuleNames(options.processes, options),
    );
  const p: Prepared = { agent, scenario, options, clockStart: options.clock?.now() ?? 0 };
  const reference = await referenceRun(p);
  const boundaries = reference.run.writes.map((w) => ({ ...w }));
  const results: CrashPointResult[] = [];
  const wanted = options.writes ? new Set(options.writes) : undefined;
  for (const write of boundaries) {
    if (wanted && !wanted.has(write.index)) continue;
    for (const side of options.sides ?? CRASH_SIDES) {
      const result = await explorePoint(p, reference, { write: write.index, side }, write.label);
      if (!result.passed) {
        result.replayFile = await writeReplayFile(
          options.replayDir ?? join(tmpdir(), 'agentstate-crash-replays'),
          {
            format: 'agentstate-crash-replay',
            version: 1,
            scenario,
            point: result.point,
            label: result.label,
            options: {
              stores: options.stores === 'level' || options.processes ? 'level' : 'memory',
              inDoubt: options.inDoubt ?? 'fail',
              ...(options.clock ? { clockStart: p.clockStart } : {}),
            },
            violations: result.violations,
          },
        );
      }
      results.push(result);
    }
  }
  const failures = results.filter((r) => !r.passed);
  return {
    scenario: scenario.name,
    boundaries,
    points: results.length,
    passed: results.length - failures.length,
    failed: failures.length,
    results,
    failures,
  };
}

/** What `replayCrash` takes of `exploreCrashes`' options (the rest comes from the file). */
export interface ReplayCrashOptions extends Pick<
  ExploreCrashesOptions,
  'effects' | 'clock' | 'processes'
> {
  /** Test-only: see `ExploreCrashesOptions.faults`. @internal */
  faults?: RuntimeFaults | undefined;
}

/**
 * Runs the one crash point a replay file names (written by `exploreCrashes` for a failed
 * point), after the reference run it is checked against: the failure, reproduced alone.
 */
export async function replayCrash(
  agent: Agent,
  file: string,
  options: ReplayCrashOptions = {},
): Promise<CrashPointResult> {
  const replay = await readReplayFile(file);
  checkExploreOptions(options);
  options.clock?.set(replay.options.clockStart ?? options.clock.now());
  const p: Prepared = {
    agent,
    scenario: replay.scenario,
    options: { ...options, stores: replay.options.stores, inDoubt: replay.options.inDoubt },
    clockStart: replay.options.clockStart ?? options.clock?.now() ?? 0,
  };
  const reference = await referenceRun(p);
  const label = reference.run.writes[replay.point.write]?.label ?? replay.label;
  return explorePoint(p, reference, replay.point, label);
}
