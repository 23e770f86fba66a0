import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/shared/cli-io.js';

/** What one command line run in this process printed, and its exit code. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the command line in this process (no build, no child process): `args` as typed after
 * `agentstate`, with `env` (times print in UTC) and no terminal.
 */
export async function cliInProcess(
  args: string[],
  env: Record<string, string> = {},
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
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
