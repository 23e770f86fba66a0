import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import type { ToolCallOutput } from '../../src/machines/step-actor-io.js';
import { killLiveWorkers, runWorker } from '../helpers/crash-driver.js';
import { readToolLog } from '../helpers/crash-log.js';
import { CRASH_SESSION, type CrashPoint } from '../helpers/crash-point.js';
import type { CrashWorkerResult } from '../helpers/crash-worker.js';

/** Tool calls of the session (one per turn, then a final answer). */
const STEPS = 10;
const SEEDS = [0x1d0b7, 0x5eed5, 0xc4a54];
type Mode = 'retry' | 'fail' | 'reconcile' | 'ask-retry' | 'ask-result' | 'ask-fail';

/** Three kill points mid-tool-call, ascending, picked from `seed`: after or before the effect. */
function killPoints(seed: number): CrashPoint[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const targets = new Set<number>();
  while (targets.size < 3) targets.add(Math.floor(next() * STEPS));
  return [...targets]
    .sort((a, b) => a - b)
    .map((target) => ({ phase: next() < 0.7 ? 'tool-after' : 'tool-before', target }));
}

/**
 * Runs the session killed with SIGKILL at each point (one process per point, each resuming the
 * last), then to its end, with the tool's `mode` for a call in doubt. 'step' durability.
 */
async function killedRun(folder: string, mode: Mode, points: CrashPoint[]) {
  const dbDir = join(folder, `${mode}-db`);
  const logFile = join(folder, `${mode}.log`);
  for (const [round, point] of points.entries()) {
    const worker = await runWorker({
      dbDir,
      logFile,
      mode: round === 0 ? 'start' : 'resume',
      steps: STEPS,
      crashAt: `${point.phase}:${point.target}`,
      inDoubt: mode,
    });
    expect(worker.killed, `${mode} ${point.phase}:${point.target}`).toBe(true);
  }
  const last = await runWorker({ dbDir, logFile, mode: 'resume', steps: STEPS, inDoubt: mode });
  expect(last.killed).toBe(false);
  const lines = await readToolLog(logFile);
  const store = await LevelSessionStore.open({ path: dbDir });
  try {
    const runIds = [...new Set(lines.map((l) => l.runId))];
    const journal = (
      await Promise.all(runIds.map((runId) => store.readRunJournal(CRASH_SESSION, runId)))
    ).flat();
    const inDoubt = journal
      .filter((e) => e.kind === 'tool')
      .map((e) => e.output as ToolCallOutput)
      .filter((o) => o.inDoubt)
      .map((o) => [o.callId, o.inDoubt!.resolution, o.inDoubt!.reconcile ?? '']);
    // What the worker, as operator, found paused in doubt (`ask-*` modes only).
    const asked = (await readFile(`${logFile}.in-doubt`, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean);
    return { result: last.result!, lines, inDoubt, asked };
  } finally {
    await store.close();
  }
}

/** How many times each call id ran its effect. */
function effects(lines: { callId: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { callId } of lines) counts.set(callId, (counts.get(callId) ?? 0) + 1);
  return counts;
}

describe('crash test: calls in doubt, per onInterrupted mode (SIGKILL mid tool call)', () => {
  let folder: string | undefined;
  afterEach(async () => {
    killLiveWorkers();
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = undefined;
  });

  it.each(SEEDS)(
    "seed %i: 'fail' and reconcile never run an effect twice; 'retry' runs each call in doubt once more, with the same call id",
    async (seed) => {
      folder = await mkdtemp(join(tmpdir(), 'agentstate-in-doubt-'));
      const points = killPoints(seed);
      const after = points.filter((p) => p.phase === 'tool-after').map((p) => `call-${p.target}`);
      const before = points.filter((p) => p.phase === 'tool-before').map((p) => `call-${p.target}`);
      const all = Array.from({ length: STEPS }, (_, n) => `call-${n}`);
      const reference = await runWorker({
        dbDir: join(folder, 'reference-db'),
        logFile: join(folder, 'reference.log'),
        mode: 'start',
        steps: STEPS,
        inDoubt: 'fail',
      });
      const expected = reference.result as CrashWorkerResult;

      // 'fail': no call runs twice; one killed before its effect never has it; the model read
      // "unknown" for each call in doubt, and the run went on to its end.
      const failed = await killedRun(folder, 'fail', points);
      const failedEffects = effects(failed.lines);
      expect(Math.max(...failedEffects.values())).toBe(1);
      expect([...failedEffects.keys()].sort()).toEqual(
        all.filter((c) => !before.includes(c)).sort(),
      );
      expect(failed.inDoubt.map(([c, r]) => [c, r])).toEqual(
        points.map((p) => [`call-${p.target}`, 'failed']),
      );
      const unknown = (
        failed.result.history as { type: string; callId?: string; output?: string }[]
      )
        .filter((i) => i.type === 'tool_result' && i.output?.includes('is unknown'))
        .map((i) => i.callId);
      expect(unknown).toEqual(points.map((p) => `call-${p.target}`));
      expect(failed.result.output).toMatch(new RegExp(`^${STEPS} calls`));

      // reconcile: no call runs twice, each runs once, and the run ends as if never killed.
      const reconciled = await killedRun(folder, 'reconcile', points);
      expect([...effects(reconciled.lines).entries()].sort()).toEqual(
        all.map((c) => [c, 1]).sort(),
      );
      expect(reconciled.inDoubt).toEqual(
        points.map((p) =>
          p.phase === 'tool-after'
            ? [`call-${p.target}`, 'reconciled', 'result']
            : [`call-${p.target}`, 'retried', 'retry'],
        ),
      );
      expect(reconciled.result).toEqual(expected);

      // 'retry' (the documented at-least-once): a call killed after its effect ran exactly once
      // more, with the same call id; every other call once; the run ends as if never killed.
      const retried = await killedRun(folder, 'retry', points);
      const retriedEffects = effects(retried.lines);
      for (const callId of all) {
        expect(retriedEffects.get(callId), callId).toBe(after.includes(callId) ? 2 : 1);
      }
      expect(retried.lines.length - STEPS).toBe(after.length);
      expect(retried.inDoubt.map(([c, r]) => [c, r])).toEqual(
        points.map((p) => [`call-${p.target}`, 'retried']),
      );
      expect(retried.result).toEqual(expected);
    },
    240_000,
  );

  it.each(SEEDS)(
    "seed %i: 'ask' pauses each call in doubt for an operator; 'result' and 'fail' never run an effect twice, 'retry' runs it exactly once more",
    async (seed) => {
      folder = await mkdtemp(join(tmpdir(), 'agentstate-in-doubt-ask-'));
      const points = killPoints(seed);
      const killed = points.map((p) => `call-${p.target}`);
      const after = points.filter((p) => p.phase === 'tool-after').map((p) => `call-${p.target}`);
      const before = points.filter((p) => p.phase === 'tool-before').map((p) => `call-${p.target}`);
      const all = Array.from({ length: STEPS }, (_, n) => `call-${n}`);
      const reference = await runWorker({
        dbDir: join(folder, 'reference-db'),
        logFile: join(folder, 'reference.log'),
        mode: 'start',
        steps: STEPS,
        inDoubt: 'ask-fail',
      });
      const expected = reference.result as CrashWorkerResult;
      // After each crash the resumed run stood paused in doubt on the killed call, once.
      const pausedOn = killed.map((c) => `${c} interrupted in_doubt`);

      for (const [mode, resolution] of [
        ['ask-result', 'recorded'],
        ['ask-fail', 'failed'],
      ] as const) {
        const run = await killedRun(folder, mode, points);
        expect(run.asked, mode).toEqual(pausedOn);
        const counts = effects(run.lines);
        expect(Math.max(...counts.values()), mode).toBe(1);
        expect([...counts.keys()].sort(), mode).toEqual(
          all.filter((c) => !before.includes(c)).sort(),
        );
        expect(run.inDoubt.map(([c, r]) => [c, r])).toEqual(killed.map((c) => [c, resolution]));
        if (mode === 'ask-result') {
          // The operator recorded each value: the run ends as if never killed.
          expect(run.result).toEqual(expected);
        } else {
          expect(run.result.output).toMatch(new RegExp(`^${STEPS} calls`));
        }
      }

      const retried = await killedRun(folder, 'ask-retry', points);
      expect(retried.asked).toEqual(pausedOn);
      const retriedEffects = effects(retried.lines);
      for (const callId of all) {
        expect(retriedEffects.get(callId), callId).toBe(after.includes(callId) ? 2 : 1);
      }
      expect(retried.inDoubt.map(([c, r]) => [c, r])).toEqual(killed.map((c) => [c, 'retried']));
      expect(retried.result).toEqual(expected);
    },
    240_000,
  );
});
