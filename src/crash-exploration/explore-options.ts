import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { FakeClock } from '../testing/fake-clock.js';
import { CRASH_SIDES, type CrashSide } from './crashing-store.js';
import { EffectLedger } from './effect-ledger.js';
import type { ExploreCrashesOptions } from './explore-crashes.js';

const NAMES = new Set([
  'effects',
  'clock',
  'stores',
  'sides',
  'writes',
  'inDoubt',
  'replayDir',
  'faults',
  'processes',
]);

const PROCESS_NAMES = new Set(['module', 'export', 'effects', 'clock', 'timeoutMs']);

/** Checks the option `processes` (a child process per point); `TypeError` names the field. */
function checkProcesses(options: ExploreCrashesOptions, where: string): void {
  const p = options.processes;
  if (p === undefined) return;
  if (typeof p !== 'object' || p === null)
    throw new TypeError(`${where}: options.processes must be an object ({ module, ... })`);
  const unknown = Object.keys(p).find((k) => !PROCESS_NAMES.has(k));
  if (unknown !== undefined) throw new TypeError(`${where}: unknown option "processes.${unknown}"`);
  if (typeof p.module !== 'string' || p.module === '')
    throw new TypeError(
      `${where}: options.processes.module must be the path of the agent's module`,
    );
  if (!existsSync(resolve(p.module)))
    throw new TypeError(`${where}: options.processes.module: no file at ${resolve(p.module)}`);
  for (const field of ['export', 'effects', 'clock'] as const) {
    const value = p[field];
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      throw new TypeError(`${where}: options.processes.${field} must be an export's name`);
  }
  if (p.timeoutMs !== undefined && (!Number.isInteger(p.timeoutMs) || p.timeoutMs <= 0))
    throw new TypeError(`${where}: options.processes.timeoutMs must be a positive integer`);
  if (options.stores !== undefined && options.stores !== 'level')
    throw new TypeError(
      `${where}: options.stores must be 'level' (or absent) with options.processes: a child process opens LevelDB`,
    );
}

/** Checks `exploreCrashes`' options; a `TypeError` names the option. */
export function checkExploreOptions(options: ExploreCrashesOptions): void {
  const where = 'exploreCrashes';
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${where}: options must be an object`);
  const unknown = Object.keys(options).find((k) => !NAMES.has(k));
  if (unknown !== undefined) throw new TypeError(`${where}: unknown option "${unknown}"`);
  const o = options;
  if (o.effects !== undefined && !(o.effects instanceof EffectLedger))
    throw new TypeError(`${where}: options.effects must be an EffectLedger`);
  if (o.clock !== undefined && !(o.clock instanceof FakeClock))
    throw new TypeError(`${where}: options.clock must be a FakeClock (the agent's)`);
  if (
    o.stores !== undefined &&
    o.stores !== 'memory' &&
    o.stores !== 'level' &&
    typeof o.stores !== 'function'
  )
    throw new TypeError(
      `${where}: options.stores must be 'memory', 'level' or a function giving a store space`,
    );
  if (
    o.sides !== undefined &&
    (!Array.isArray(o.sides) ||
      o.sides.length === 0 ||
      o.sides.some((s) => !CRASH_SIDES.includes(s as CrashSide)))
  )
    throw new TypeError(`${where}: options.sides must list some of 'before', 'during', 'after'`);
  if (
    o.writes !== undefined &&
    (!Array.isArray(o.writes) || o.writes.some((w) => !Number.isInteger(w) || w < 0))
  )
    throw new TypeError(`${where}: options.writes must list write indexes (integers >= 0)`);
  if (o.inDoubt !== undefined && o.inDoubt !== 'retry' && o.inDoubt !== 'fail')
    throw new TypeError(`${where}: options.inDoubt must be 'retry' or 'fail'`);
  if (o.replayDir !== undefined && (typeof o.replayDir !== 'string' || o.replayDir === ''))
    throw new TypeError(`${where}: options.replayDir must be a folder path`);
  checkProcesses(o, where);
}
