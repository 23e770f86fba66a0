/** Where the command line reads its settings and writes its output (a real process, or a test's). */
export interface CliIo {
  /** Writes to standard output (the command's result). */
  out(text: string): void;
  /** Writes to standard error (notes, progress, errors). */
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether standard output is a terminal (tables get colour there, unless `NO_COLOR`). */
  stdoutIsTTY: boolean;
  /** Whether standard error is a terminal (progress then redraws one line). */
  stderrIsTTY: boolean;
  /** The folder relative paths (`--db`, `--out`, `--agent`) are resolved from. */
  cwd: string;
}

/** The running process's streams and environment. */
export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    cwd: process.cwd(),
  };
}

/** Whether output may be coloured: a terminal, and no `NO_COLOR` (https://no-color.org). */
export function colorEnabled(io: CliIo): boolean {
  const noColor = io.env['NO_COLOR'];
  return io.stdoutIsTTY && (noColor === undefined || noColor === '');
}
