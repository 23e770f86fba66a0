import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CrashScenario } from './crash-scenario.js';
import type { CrashAt } from './crashing-store.js';
import type { RuntimeFaults } from './execution-probe.js';
import type { LifeEvent } from './life-event.js';
import type { InDoubtAnswer } from './scenario-run.js';

/**
 * `exploreCrashes`' option `processes`: each crash point's first process runs as a real child
 * process, killed with SIGKILL at its point. The child imports `module` to get the same agent
 * (and the ledger and clock its tools use); a TypeScript module runs through the tsx loader.
 */
export interface CrashProcesses {
  /** The file that exports the agent (a path, from the current folder). */
  module: string;
  /** The agent's export. @default the default export, else `agent` */
  export?: string | undefined;
  /** The export of the `EffectLedger` the tools record into (read when `effects` is given). @default 'effects' */
  effects?: string | undefined;
  /** The export of the agent's `FakeClock` (read when `clock` is given). @default 'clock' */
  clock?: string | undefined;
  /** A child that neither reaches its crash point nor ends by then is killed, and its point fails. @default 60000 */
  timeoutMs?: number | undefined;
}

/** How a first process run as a child ended: what it printed before it was killed, or exited. */
export interface ChildLifeEnd {
  events: LifeEvent[];
  /** True when it reached its crash point and was killed there with SIGKILL. */
  killed: boolean;
  /** What went wrong (it exited on its own with an error, or hung past the timeout). */
  problem?: string | undefined;
}

/** Runs the first process of a scenario run as a child, to be killed at `crashAt`. */
export type ChildLife = (crashAt: CrashAt | undefined) => Promise<ChildLifeEnd>;

/** What the child is told (one JSON argument): where its agent is, what to play, where to die. */
export interface ChildLifeConfig {
  /** The module to import the agent from (absolute path). */
  module: string;
  /** The agent's export (`undefined`: the default export, else `agent`). */
  export?: string | undefined;
  /** The export of the `EffectLedger` its tools record into (`undefined`: no ledger). */
  effects?: string | undefined;
  /** The export of the agent's `FakeClock` (`undefined`: no fake clock). */
  clock?: string | undefined;
  clockStart: number;
  scenario: CrashScenario;
  crashAt: CrashAt | undefined;
  /** The LevelDB folder of the point. */
  path: string;
  inDoubt: InDoubtAnswer;
  faults?: RuntimeFaults | undefined;
}

/** The file descriptor the child prints its facts on (its stdout and stderr are the tools'). */
export const CHILD_EVENTS_FD = 3;

/**
 * The child script: next to this module in the sources (run through the tsx loader) and in a
 * compiled layout, under `crash-exploration/` beside the package's bundled entry points.
 */
function childScript(): { path: string; typescript: boolean } {
  for (const name of [
    './crash-exploration/crash-child.js',
    './crash-child.js',
    './crash-child.ts',
  ]) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return { path, typescript: path.endsWith('.ts') };
  }
  throw new Error('exploreCrashes: the crash child script is missing from the package');
}

/**
 * What a child still did after it asked to be killed and before the kill landed: a tool call
 * that ran meanwhile did run. (Its held writes and steps never happened.)
 */
const AFTER_KILL = new Set<LifeEvent['type']>(['effect', 'execution', 'finished']);

/** A line the child printed on its events' descriptor, if it is one (JSON with a type). */
function parseEvent(line: string): LifeEvent | undefined {
  try {
    const event = JSON.parse(line) as Partial<LifeEvent> | null;
    return typeof event?.type === 'string' ? (event as LifeEvent) : undefined;
  } catch {
    return undefined;
  }
}

const TYPESCRIPT = /\.[cm]?tsx?$/;

/**
 * Runs the first process of one crash point as a real child process: `node crash-child.js`
 * (through the tsx loader when it or the agent's module is TypeScript) plays the scenario on
 * the LevelDB folder, prints its facts as JSON lines, and at its crash point prints `kill` and
 * holds; this parent then kills it with SIGKILL. A child that runs past `timeoutMs` is killed
 * too, and its run reports the problem.
 */
export function runChildLife(config: ChildLifeConfig, timeoutMs: number): Promise<ChildLifeEnd> {
  const script = childScript();
  const loader = script.typescript || TYPESCRIPT.test(config.module) ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, script.path, JSON.stringify(config)], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const events: LifeEvent[] = [];
  let stderr = '';
  let killed = false;
  let problem: string | undefined;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  const timer = setTimeout(() => {
    problem = `the child process ran past ${timeoutMs} ms without reaching its crash point; killed`;
    child.kill('SIGKILL');
  }, timeoutMs);
  createInterface({ input: child.stdio[CHILD_EVENTS_FD] as NodeJS.ReadableStream }).on(
    'line',
    (line) => {
      const event = parseEvent(line);
      if (event === undefined) return;
      if (event.type === 'kill') {
        killed = true;
        child.kill('SIGKILL');
      } else if (!killed || AFTER_KILL.has(event.type)) events.push(event);
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const done = events.some((e) => e.type === 'done');
      if (!killed && !done && problem === undefined)
        problem = `the child process exited (${code ?? signal}) before its crash point: ${stderr.trim()}`;
      resolve({ events, killed, problem });
    });
  });
}
