import type { Clock } from '../../core/clock.js';

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
  /** The time of what the command computes from now (a schedule's next fire times). @default the system clock */
  clock?: Clock | undefined;
}

/**
 * Writes to `stream` until its reader goes away: a reader that stops early (`| head`) closes
 * the pipe, and the rest of the output is dropped quietly, as Unix tools do, instead of an
 * unhandled `EPIPE` ending the process with a stack. The command still ends as it would have.
 */
function untilClosed(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** The running process's streams and environment. */
export function processIo(): CliIo {
  return {
    out: untilClosed(process.stdout),
    err: untilClosed(process.stderr),
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
