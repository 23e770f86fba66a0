import { isErrorCode, type ErrorCode } from '../../errors/agentstate-error.js';

/** Exit codes of the command line. */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, conflict: 4 } as const;

/** A mistake in how the command was called: bad flag, missing argument (exit code 2). */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
  constructor(
    message: string,
    /** The command whose `--help` to point to, e.g. `sessions list`. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** A failure the command line explains in one line of its own (exit code 1 unless given). */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

const NOT_FOUND: readonly ErrorCode[] = [
  'SESSION_NOT_FOUND',
  'RUN_NOT_FOUND',
  'UNKNOWN_CALL',
  'NOT_IN_DOUBT',
  'STORE_NOT_FOUND',
  'WORKFLOW_NOT_FOUND',
  'WORKFLOW_MISMATCH',
  'SCHEDULE_NOT_FOUND',
];
const CONFLICT: readonly ErrorCode[] = [
  'SESSION_CONFLICT',
  'INVALID_SESSION_TRANSITION',
  'RUN_IN_PROGRESS',
  'RUN_PAUSED',
  'NOTHING_TO_RESUME',
  'STALE_DECISION',
  'AMBIGUOUS_CALL',
  'APPROVAL_EXPIRED',
  'ALREADY_DECIDED',
  'WRONG_AGENT',
  'DEFINITION_CHANGED',
  'FORK_POSITION_OUT_OF_RANGE',
  'LEASE_LOST',
  'WORKFLOW_EXISTS',
  'WORKFLOW_DEFINITION_CHANGED',
  'EVENT_NOT_ACCEPTED',
  'WORKFLOW_CANCELLED',
  'SCHEDULE_EXISTS',
  'SCHEDULE_CONFLICT',
];
/** Codes of input the command line was given wrong (exit 2, as a usage error). */
const USAGE: readonly ErrorCode[] = [
  'ID_TOO_LONG',
  'INVALID_EVENT',
  'INVALID_SCHEDULE',
  'INVALID_CERTIFICATE',
  'INVALID_DATASET',
  'INVALID_EVAL_REPORT',
  'EVAL_MISMATCH',
];

/**
 * The stable code of an agentstate error: of this copy of the package, or of the copy an app's
 * module (`--agent`, `--module`) loaded, whose classes are others.
 */
function codeOf(error: unknown): ErrorCode | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return isErrorCode(code) ? code : undefined;
}

/** The exit code an error ends the command with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliUsageError) return EXIT.usage;
  if (error instanceof CliFailure) return error.exitCode;
  if (error instanceof TypeError) return EXIT.usage;
  const code = codeOf(error);
  if (code !== undefined) {
    if (USAGE.includes(code)) return EXIT.usage;
    if (NOT_FOUND.includes(code)) return EXIT.notFound;
    if (CONFLICT.includes(code)) return EXIT.conflict;
  }
  return EXIT.failure;
}

/** The one line an error is shown as (its stack only with `--debug`). */
export function errorLines(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack) return `${error.stack}\n`;
  const message = error instanceof Error ? error.message : String(error);
  const known = codeOf(error);
  const code = known === undefined ? '' : ` [${known}]`;
  const hint =
    error instanceof CliUsageError
      ? ` (see: agentstate ${error.command ? `${error.command} ` : ''}--help)`
      : '';
  return `agentstate: ${message.split('\n')[0]}${code}${hint}\n`;
}
