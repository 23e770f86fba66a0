import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidReplayError } from '../errors/replay-errors.js';
import { checkScenario, type CrashScenario } from './crash-scenario.js';
import { CRASH_SIDES, type CrashAt, type CrashSide } from './crashing-store.js';
import type { CrashPointResult } from './crash-report.js';
import type { InDoubtAnswer } from './scenario-run.js';

/** What a replay file holds: the scenario, the point and how it failed. Plain JSON. */
export interface CrashReplay {
  format: 'agentstate-crash-replay';
  version: 1;
  scenario: CrashScenario;
  point: CrashAt;
  label: string;
  /** The exploration's options that shape the run (the agent is the caller's). */
  options: { stores: 'memory' | 'level'; inDoubt: InDoubtAnswer; clockStart?: number | undefined };
  violations: CrashPointResult['violations'];
}

/** Writes the replay file of a failed point into `dir`; answers its path. */
export async function writeReplayFile(dir: string, replay: CrashReplay): Promise<string> {
  await mkdir(dir, { recursive: true });
  const safe = replay.scenario.name.replace(/[^a-zA-Z0-9_-]+/g, '-').slice(0, 60);
  const file = join(dir, `${safe}.${replay.point.side}-${replay.point.write}.crash.json`);
  await writeFile(file, `${JSON.stringify(replay, null, 2)}\n`);
  return file;
}

/** Reads and checks a crash replay file; `InvalidReplayError` (`INVALID_REPLAY`) names what is wrong. */
export async function readReplayFile(file: string): Promise<CrashReplay> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InvalidReplayError('', `${file} is not JSON (${(error as Error).message})`);
  }
  const r = parsed as Partial<CrashReplay>;
  if (r?.format !== 'agentstate-crash-replay' || r.version !== 1)
    throw new InvalidReplayError('format', `${file} is not a crash replay file of version 1`);
  try {
    checkScenario(r.scenario, 'scenario');
  } catch (error) {
    throw new InvalidReplayError('scenario', `${file}: ${(error as Error).message}`);
  }
  const point = r.point as Partial<CrashAt> | undefined;
  if (
    !Number.isInteger(point?.write) ||
    (point?.write ?? -1) < 0 ||
    !CRASH_SIDES.includes(point?.side as CrashSide)
  )
    throw new InvalidReplayError(
      'point',
      `${file}: point must be { write: integer >= 0, side: before | during | after }`,
    );
  const options = r.options;
  if (
    !options ||
    !['memory', 'level'].includes(options.stores) ||
    !['retry', 'fail'].includes(options.inDoubt)
  )
    throw new InvalidReplayError(
      'options',
      `${file}: options must be { stores: 'memory' | 'level', inDoubt: 'retry' | 'fail' }`,
    );
  return r as CrashReplay;
}
