/**
 * What the two-process examples share: a line prefixed with the process id, and a phase of an
 * example run in a new Node process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prints `text` as this process: `[process <pid>] text`. */
export const say = (text: string): void => console.log(`[process ${process.pid}] ${text}`);

/**
 * Runs `file` with argument `phase` (and `args` after it) in a new Node process (data in `dir`)
 * and waits for it.
 */
export function runPhase(
  file: string,
  dir: string,
  phase: string,
  ...args: string[]
): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, file, phase, ...args], {
    stdio: 'inherit',
    env: { ...process.env, AGENTSTATE_DIR: dir },
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`phase "${phase}" exited with ${code}`)),
    );
  });
}

/** A two-process example: its phases by name, and what is said between them. */
export interface TwoPhaseExample {
  /** The example's own file (`fileURLToPath(import.meta.url)`), run again for each phase. */
  file: string;
  /** Prefix of the temp folder the data lives in when AGENTSTATE_DIR is unset. */
  tempPrefix: string;
  /** The first phase (it ends while the run waits) and the second (a new process). */
  first: [name: string, run: (dir: string) => Promise<void>];
  second: [name: string, run: (dir: string) => Promise<void>];
  /** Said between the two processes. */
  between: string;
}

/**
 * Runs an example from its command line: no argument runs both phases, each in its own child
 * process, on a temp folder (or AGENTSTATE_DIR); a phase's name runs that phase only.
 */
export async function runTwoPhases(example: TwoPhaseExample): Promise<void> {
  const phase = process.argv[2] ?? 'all';
  const given = process.env['AGENTSTATE_DIR'];
  const dir =
    given ??
    (phase === 'all' ? await mkdtemp(join(tmpdir(), example.tempPrefix)) : './.agentstate');
  const [firstName, first] = example.first;
  const [secondName, second] = example.second;
  try {
    if (phase === 'all') {
      say(`Running the two phases in two processes; data in ${dir}.`);
      await runPhase(example.file, dir, firstName);
      say(example.between);
      await runPhase(example.file, dir, secondName);
    } else if (phase === firstName) await first(dir);
    else if (phase === secondName) await second(dir);
    else throw new Error(`unknown phase "${phase}"`);
  } finally {
    if (!given && phase === 'all') await rm(dir, { recursive: true, force: true });
  }
}
