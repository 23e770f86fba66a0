import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLiveWorkers, runWorker } from '../helpers/crash-driver.js';
import {
  checkToolLog,
  lastCallAfterKill,
  readLinesWithoutPid,
  readToolLog,
  type KillRecord,
} from '../helpers/crash-log.js';
import { KillPlanner } from '../helpers/crash-plan.js';
import { formatCrashPoint, type CrashPhase, type CrashPoint } from '../helpers/crash-point.js';
import { failingCalls, readModelFailures } from '../helpers/crash-model-failures.js';
import type { CrashWorkerResult } from '../helpers/crash-worker.js';
import {
  readModelCalls,
  resumeProblems,
  runModeProblems,
  runModeToolLogProblems,
  storedToolResults,
  type ResumedRound,
} from '../helpers/crash-guarantees.js';
import { bySize } from '../helpers/test-tier.js';
import type { Durability } from '../../src/index.js';

/** Tool calls in the session (one per turn, then a final answer). */
const STEPS = bySize({ quick: 32, long: 40 });
/**
 * SIGKILLs of the crashed session: at seeded points (every phase at least twice), then 2
 * around the final save.
 */
const KILLS = bySize({ quick: 18, long: 24 });
const SEED = 0x4c7a5e;

interface Kill extends KillRecord {
  phase: CrashPhase;
}

/** Runs the session in worker processes, killing each at the planner's next point, to the end. */
async function crashedRun(folder: string, durability: Durability) {
  const dbDir = join(folder, 'crashed-db');
  const logFile = join(folder, 'crashed.log');
  const planner = new KillPlanner(SEED, STEPS, KILLS);
  const kills: Kill[] = [];
  const resumed: ResumedRound[] = [];
  for (let round = 0; ; round++) {
    const before = await readToolLog(logFile);
    // 'run': the next process starts over at the last pause (or the start), not at the furthest
    // call any process reached.
    const next =
      durability === 'run'
        ? await storedToolResults(dbDir)
        : before.length
          ? Math.max(...before.map((l) => l.n)) + 1
          : 0;
    const planned = planner.point(round, next);
    const point =
      durability === 'run' && planned && round < KILLS - 2
        ? landingSaveOfRunMode(planned, readModelFailures(logFile))
        : planned;
    const crashAt = point && formatCrashPoint(point);
    const worker = await runWorker({
      dbDir,
      logFile,
      mode: round === 0 ? 'start' : 'resume',
      steps: STEPS,
      crashAt,
      durability,
    });
    const kill = kills.at(-1);
    if (kill) resumed.push({ round: worker, kill });
    if (!worker.killed) {
      // A run that finishes before its kill point says the run got ahead of a pending save.
      const unreached = point
        ? `round ${round}: the run finished before reaching ${crashAt}`
        : undefined;
      return { result: worker.result!, kills, logFile, unreached, resumed };
    }
    const linesAtKill = (await readToolLog(logFile)).length;
    kills.push({
      point: crashAt!,
      phase: point!.phase,
      lastMarker: worker.lastMarker,
      linesAtKill,
    });
  }
}

/**
 * With 'run' durability the only saves before the end are the pauses at a model call's first
 * failure (`failingCalls`, each saved with the results up to the call before it). A kill
 * planned in a save that lands (`save-during`, `save-after`) with no such pause left ahead
 * would land the run's final save and end the run early: it is moved to `save-before` (the
 * final save, not written). The last two planned kills hit the final save on purpose.
 */
function landingSaveOfRunMode(point: CrashPoint, failed: number[]): CrashPoint {
  if (point.phase !== 'save-during' && point.phase !== 'save-after') return point;
  const pauseAhead = failingCalls(STEPS).some((f) => !failed.includes(f) && f - 1 >= point.target);
  return pauseAhead ? point : { ...point, phase: 'save-before' };
}

describe('crash test: a session killed with SIGKILL at seeded points', () => {
  let folder: string | undefined;

  afterEach(async () => {
    killLiveWorkers();
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = undefined;
  });

  // 'step' (the default): only the step in flight at a kill runs again. 'tools': the same for
  // tool calls (a tool call that returned never runs again); a model call since the last tool
  // boundary may. 'run': the run goes on from its last pause (or starts over), tools included.
  it.each(['step', 'tools', 'run'] as const)(
    "'%s' durability: resumes to the output of a run never killed, re-running only what the mode allows",
    async (durability) => {
      const started = Date.now();
      folder = await mkdtemp(join(tmpdir(), 'agentstate-crash-'));
      const referenceLog = join(folder, 'reference.log');
      const [reference, crashed] = await Promise.all([
        runWorker({
          dbDir: join(folder, 'reference-db'),
          logFile: referenceLog,
          mode: 'start',
          steps: STEPS,
          durability,
        }),
        crashedRun(folder, durability),
      ]);
      const { result, kills } = crashed;
      const expected = reference.result as CrashWorkerResult;

      // The run never killed: each call once, in order.
      expect(expected.output).toMatch(new RegExp(`^${STEPS} calls, total \\d+`));
      expect(checkToolLog(await readToolLog(referenceLog), [], STEPS)).toEqual([]);

      const lines = await readToolLog(crashed.logFile);
      const models = readModelCalls(crashed.logFile);
      const referenceModels = readModelCalls(referenceLog);
      // Every mode: a resumed process starts exactly at what the store holds.
      expect(resumeProblems(crashed.resumed, lines, models, STEPS, durability === 'run')).toEqual(
        [],
      );
      let duplicates: { callId: string }[] = [];
      if (durability === 'run') {
        // Stored only at pauses and the end: each kill lost what ran since; those calls ran
        // again, with the same idempotency key.
        expect(runModeProblems(crashed.resumed, failingCalls(STEPS), STEPS)).toEqual([]);
        expect(runModeToolLogProblems(lines, kills.length + 1)).toEqual([]);
        expect(lines.length).toBeGreaterThan(STEPS);
        expect(models.length).toBeGreaterThan(referenceModels.length);
      } else {
        // Every completed call ran once; a second run is only ever the call in flight at a kill,
        // with the same idempotency key; at most one per kill.
        duplicates = checkToolLog(lines, kills, STEPS);
        expect(lines.length).toBe(STEPS + duplicates.length);
        expect(duplicates.length).toBeLessThanOrEqual(kills.length);
        // A model call runs again only when it was the one since the last durable point (the
        // step in flight, or with 'tools' the model step since the last tool boundary, here
        // one): at most one per kill.
        expect(models.length - referenceModels.length).toBeGreaterThanOrEqual(0);
        expect(models.length - referenceModels.length).toBeLessThanOrEqual(kills.length);
      }
      for (const kill of kills) {
        const [, target] = kill.point.split(':');
        if (kill.phase === 'tool-after') {
          // Killed after the side effect, before the result was journaled: it runs again.
          expect(kill.lastMarker, kill.point).toMatch(/^at tool-after \d+$/);
          expect(Number(kill.lastMarker!.split(' ')[2])).toBeGreaterThanOrEqual(Number(target));
          expect(lastCallAfterKill(lines, kill), kill.point).toBe('again');
        }
        if ((kill.phase === 'tool-before' || kill.phase === 'model') && durability !== 'run') {
          // The previous call completed and was journaled before the next step began.
          expect(lastCallAfterKill(lines, kill), kill.point).not.toBe('again');
        }
      }

      // Every kill planned, mid-tool-call and mid-save among them.
      expect(crashed.unreached).toBeUndefined();
      expect(kills.length).toBe(KILLS);
      const phases = new Set(kills.map((k) => k.phase));
      for (const phase of [
        'tool-after',
        'tool-before',
        'model',
        'save-before',
        'save-during',
        'save-after',
        'race',
      ]) {
        expect(phases, `no kill in phase ${phase}`).toContain(phase);
      }

      // Same final output, turns, usage and history as the run never killed.
      expect(result).toEqual(expected);

      // Model calls that failed interrupted the run (reason `error`) and were retried by resume,
      // in both runs: each failed once, and the history holds no trace of it (equal above).
      expect(failingCalls(STEPS).length).toBeGreaterThan(3);
      expect(readModelFailures(referenceLog)).toEqual(failingCalls(STEPS));
      expect(readModelFailures(crashed.logFile)).toEqual(failingCalls(STEPS));

      const byPhase = Object.fromEntries(
        [...phases].map((p) => [p, kills.filter((k) => k.phase === p).length]),
      );
      console.info(
        `crash test (${durability}): ${kills.length} kills ${JSON.stringify(byPhase)} at ${kills.map((k) => k.point).join(' ')}; ` +
          `${duplicates.length} call(s) ran twice ` +
          `(${duplicates.map((d) => d.callId).join(', ')}), ${lines.length} tool and ${models.length} model calls ` +
          `(never killed: ${STEPS} and ${referenceModels.length}), ${Date.now() - started} ms`,
      );
    },
    360_000,
  );

  it('a run killed mid-tool-call, then cancelled: the call in flight never runs again; the next message runs', async () => {
    folder = await mkdtemp(join(tmpdir(), 'agentstate-crash-'));
    const dbDir = join(folder, 'db');
    const logFile = join(folder, 'tools.log');
    const steps = 6;
    const killed = await runWorker({
      dbDir,
      logFile,
      mode: 'start',
      steps,
      crashAt: 'tool-after:3',
    });
    expect(killed.killed).toBe(true);
    const atKill = await readToolLog(logFile);
    expect(atKill.map((l) => l.callId)).toEqual(['call-0', 'call-1', 'call-2', 'call-3']);

    const next = await runWorker({ dbDir, logFile, mode: 'cancel', steps });
    // The cancelled call 3 was answered "cancelled" (it counts as a result for the script),
    // so the new run made calls 4 and 5 (4 failed once and was resumed), each once.
    const lines = await readToolLog(logFile);
    expect(lines.map((l) => l.callId)).toEqual([
      'call-0',
      'call-1',
      'call-2',
      'call-3',
      'call-4',
      'call-5',
    ]);
    expect(new Set(lines.slice(4).map((l) => l.runId)).size).toBe(1);
    expect(lines[4]?.runId).not.toBe(lines[3]?.runId);
    expect(readModelFailures(logFile)).toEqual([4]);
    const history = next.result!.history as { type: string; callId?: string; output?: string }[];
    const calls = history.filter((i) => i.type === 'tool_call').map((i) => i.callId);
    const results = history.filter((i) => i.type === 'tool_result');
    expect(results.map((i) => i.callId)).toEqual(calls);
    expect(results[3]?.output).toContain('cancelled');
    expect(next.result!.output).toMatch(/^6 calls/);
  }, 60_000);

  it.each(['step', 'tools', 'run'] as const)(
    "sub-agents, '%s' durability: a process killed while a grandchild runs its tool and while a child calls its model; the resumes finish them re-running only what the mode allows",
    async (durability) => {
      folder = await mkdtemp(join(tmpdir(), 'agentstate-crash-'));
      const nested = (name: string, mode: 'start' | 'resume', crashAt?: string) =>
        runWorker({
          dbDir: join(folder!, `${name}-db`),
          logFile: join(folder!, `${name}.log`),
          mode,
          steps: 0,
          scenario: 'sub-agents',
          crashAt,
          durability,
        });
      const reference = await nested('reference', 'start');
      expect(reference.killed).toBe(false);
      expect(reference.result?.subRuns).toEqual([
        ['lead>mid', 'completed', 3],
        ['lead>mid>leaf', 'completed', 2],
        ['lead>mid>leaf', 'completed', 2],
      ]);

      // killed in the grandchild's first tool call (after its side effect, before its journal)
      const first = await nested('crashed', 'start', 'tool-after:1');
      expect(first.killed).toBe(true);
      expect(first.lastMarker).toBe('at tool-after 1');
      // killed in the child's third model call (after the first leaf finished)
      const second = await nested('crashed', 'resume', 'model:3');
      expect(second.killed).toBe(true);
      expect(second.lastMarker).toBe('at model 3');
      const last = await nested('crashed', 'resume');
      expect(last.killed).toBe(false);
      expect(last.result).toEqual(reference.result);

      const lines = await readLinesWithoutPid(join(folder, 'crashed.log'));
      const refLines = await readLinesWithoutPid(join(folder, 'reference.log'));
      const count = (ls: string[], line: string) => ls.filter((l) => l === line).length;
      for (const line of new Set(lines)) {
        const extra = count(lines, line) - count(refLines, line);
        if (durability === 'run') {
          // nothing was stored before the end: each process started the run over, its sub-agent
          // runs and their tools included (the same call ids: their idempotency keys)
          expect(extra, line).toBeGreaterThanOrEqual(0);
          if (line.startsWith('leaf-tool ') && line.endsWith(' leaf-0')) expect(extra).toBe(2);
        }
        // only the two steps in flight at a kill ran again: the grandchild's tool call (same
        // call id, its idempotency key) and the child's model call ('tools': the model call since
        // the sub-agent call's result, the last tool boundary)
        else if (line.startsWith('leaf-tool ') && line.endsWith(' leaf-0')) expect(extra).toBe(1);
        else if (line === 'mid-model 5') expect(extra).toBe(1);
        else expect(extra, line).toBe(0);
      }
      expect(new Set(lines)).toEqual(new Set(refLines));
    },
    60_000,
  );
});
