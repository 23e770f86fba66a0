import { withRunContext } from '../core/run-context-storage.js';
import type { RunContext } from '../core/run-context.js';
import { redactDeep, type Redact } from '../errors/redact-deep.js';

/**
 * Where agentstate writes its log lines: any object with `debug`, `info`, `warn` and `error`
 * taking `(fields, message)`, e.g. a pino logger.
 */
export interface Logger {
  debug(fields: Record<string, unknown>, message?: string): void;
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** The events agentstate logs, one line each. */
export type LogEvent =
  | 'run.start'
  | 'run.end'
  | 'run.pause'
  | 'run.restore'
  | 'run.restart'
  | 'run.retry'
  | 'run.deadline'
  | 'run.recovery_queued'
  | 'run.recovery_exhausted'
  | 'session.conflict';

/**
 * The logger `AGENTSTATE_LOG` asks for (`debug`, `info`, `warn` or `error`: the lowest level
 * written): JSON lines on stderr. None when it is unset or names no level.
 */
export function envLogger(value: string | undefined): Logger | undefined {
  const min = LEVELS.indexOf((value ?? '').trim().toLowerCase() as LogLevel);
  if (min < 0) return undefined;
  const line =
    (level: LogLevel) =>
    (fields: Record<string, unknown>, message?: string): void => {
      if (LEVELS.indexOf(level) < min) return;
      process.stderr.write(
        `${JSON.stringify({ level, time: Date.now(), msg: message, ...fields })}\n`,
      );
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * Writes agentstate's structured lines: one per event, each with the run's userId, sessionId
 * and runId, redacted with the agent's `redact`, written inside the run's context (so a
 * logger that calls `getRunContext()` reads the run's). A throwing logger is ignored.
 */
export class RunLog {
  constructor(
    private readonly logger: Logger,
    private readonly redact: Redact | undefined,
  ) {}

  write(
    level: LogLevel,
    event: LogEvent,
    context: RunContext,
    fields: Record<string, unknown> = {},
  ): void {
    const line = {
      event,
      userId: context.userId,
      sessionId: context.sessionId,
      runId: context.runId,
      ...fields,
    };
    const safe = this.redact ? redactDeep(line, this.redact) : line;
    try {
      withRunContext(context, () => this.logger[level](safe, `agentstate ${event}`));
    } catch {
      // a logger must never break a run
    }
  }
}
