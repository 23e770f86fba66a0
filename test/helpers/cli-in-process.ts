import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/shared/cli-io.js';
import type { Clock } from '../../src/core/clock.js';

/** What one command line run in this process printed, and its exit code. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the command line in this process (no build, no child process): `args` as typed after
 * `agentstate`, with `env` (times print in UTC), no terminal, and `clock` for what the command
 * computes from now (default: the system clock).
 */
export async function cliInProcess(
  args: string[],
  env: Record<string, string> = {},
  clock?: Clock,
): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    env: { TZ: 'UTC', ...env },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd: process.cwd(),
    ...(clock === undefined ? {} : { clock }),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
