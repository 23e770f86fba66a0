import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundledScript } from './bundled-script.js';

/** The repository root (child processes run there, and relative script paths start there). */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Spawns the TypeScript `script` (relative to the repository root, or absolute) as
 * `node <script bundled> ...args` in the repository root (see bundled-script.ts).
 */
export async function spawnScript(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildProcess> {
  return spawnNode([await bundledScript(script), ...args], env);
}

function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs `node --import tsx <script> ...args` in the repository root to completion: for the
 * examples, run as their docs say (`npx tsx examples/<file>`); some start themselves again
 * from their own file. Test scripts go through `runScript`, which starts faster.
 */
export function runTsx(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Finished> {
  return finished(spawnNode(['--import', 'tsx', script, ...args], env));
}

/** Collects a child's output until it exits. */
export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a TypeScript script (as `spawnScript` does) to completion. */
export async function runScript(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Finished> {
  return finished(await spawnScript(script, args, env));
}

/** Resolves with the first stdout line starting with `prefix` (without it). */
export function waitForLine(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const onData = (chunk: string) => {
      buffer += chunk;
      const complete = buffer.split('\n').slice(0, -1); // only whole lines
      for (const line of complete) {
        if (line.startsWith(prefix)) {
          child.stdout?.off('data', onData);
          resolve(line.slice(prefix.length));
          return;
        }
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code, signal) =>
      reject(new Error(`child exited (${code ?? signal}) before printing "${prefix}": ${stderr}`)),
    );
  });
}

/** Sends `signal` and resolves once the child is gone. */
export function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.signalCode);
      return;
    }
    child.once('exit', (_code, sig) => resolve(sig));
    child.kill(signal);
  });
}

/** How a child script ends on failure: the error as one JSON line on stderr, exit code 1. */
export function reportChildFailure(error: unknown): void {
  const e = error as { code?: string; message?: string };
  process.stderr.write(`${JSON.stringify({ error: e.message ?? String(error), code: e.code })}\n`);
  process.exitCode = 1;
}
