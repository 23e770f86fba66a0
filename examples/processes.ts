/**
 * What the two-process examples share: a line prefixed with the process id, and a phase of an
 * example run in a new Node process.
 */
import { spawn } from 'node:child_process';

/** Prints `text` as this process: `[process <pid>] text`. */
export const say = (text: string): void => console.log(`[process ${process.pid}] ${text}`);

/** Runs `file` with argument `phase` in a new Node process (data in `dir`) and waits for it. */
export function runPhase(file: string, dir: string, phase: string): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, file, phase], {
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
