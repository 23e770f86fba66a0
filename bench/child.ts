import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (children run from there so `--import tsx` resolves). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Absolute path of a script in bench/. */
export const benchScriptPath = (name: string): string =>
  fileURLToPath(new URL(name, import.meta.url));

/** Child arguments, or a function of the spawn time (epoch ms, taken just before spawning). */
export type ChildArgs = string[] | ((spawnedAt: number) => string[]);

/**
 * Runs `bench/<script>` in a fresh Node process through the tsx loader and returns the JSON
 * object it printed last on stdout. `args` may be a function of the spawn time, for children
 * that measure their start-up.
 */
export function runChild<T>(script: string, args: ChildArgs, nodeFlags: string[] = []): Promise<T> {
  return runNodeScript<T>(benchScriptPath(script), args, [...nodeFlags, '--import', 'tsx']);
}

/**
 * Runs a JavaScript file (or, with a loader among `nodeFlags`, a TypeScript one) in a fresh
 * Node process and returns the JSON object it printed last on stdout.
 */
export function runNodeScript<T>(
  path: string,
  args: ChildArgs,
  nodeFlags: string[] = [],
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const spawnedAt = performance.timeOrigin + performance.now();
    const argv = typeof args === 'function' ? args(spawnedAt) : args;
    const child = spawn(process.execPath, [...nodeFlags, path, ...argv], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`${path} exited with ${code}:\n${stderr.trim()}`));
        return;
      }
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${path} printed no JSON result:\n${stdout}\n${stderr}`));
      }
    });
  });
}
