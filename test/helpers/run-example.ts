import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `examples/<file>` with its data in `dir` and returns its output lines, each with the id
 * of the process that printed it (`[process <pid>] ...`).
 */
export async function runExample(
  file: string,
  dir: string,
  ...args: string[]
): Promise<{ line: string; pid: number }[]> {
  const { stdout } = await exec(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'examples', file), ...args],
    { cwd: ROOT, env: { ...process.env, AGENTSTATE_DIR: dir }, timeout: 60_000 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((raw) => {
      const match = /^\[process (\d+)\] (.*)$/.exec(raw);
      if (!match) throw new Error(`unexpected output line: ${raw}`);
      return { pid: Number(match[1]), line: match[2]! };
    });
}
