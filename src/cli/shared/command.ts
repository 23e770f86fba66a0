import type { CliIo } from './cli-io.js';
import { CliUsageError } from './cli-errors.js';
import type { Painter } from './cli-format.js';
import type { CliStore } from './cli-store.js';

/** One flag of a command. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The value's placeholder in help, e.g. `N`. */
  value?: string;
  description: string;
}

/** What a command is given when it runs. */
export interface CommandContext {
  io: CliIo;
  painter: Painter;
  /** `--json`: machine-readable output on stdout. */
  json: boolean;
  /** The LevelDB folder (`--db`, `AGENTSTATE_DIR`, or `./.agentstate`). */
  db: string;
  /** `--user`; absent: the anonymous bucket. */
  user: string | undefined;
  /** The positional arguments given, by the names in `Command.args` and `optionalArgs`. */
  args: Record<string, string>;
  /** The command's own flags as parsed. */
  flags: Record<string, string | boolean | undefined>;
  /** Opens the store folder (closed when the command ends). */
  open(): Promise<CliStore>;
}

/** One command of the command line; each lives in a file of its own under `commands/`. */
export interface Command {
  /** The words that name it, e.g. `sessions list`. */
  name: string;
  summary: string;
  /** Positional arguments, all required, e.g. `['sessionId']`. */
  args: string[];
  /** Positional arguments after `args` that may be left out (absent from `ctx.args` then). */
  optionalArgs?: string[] | undefined;
  options: Record<string, OptionSpec>;
  /** At least one example command line. */
  examples: string[];
  /** More lines of help, if any. */
  details?: string | undefined;
  run(ctx: CommandContext): Promise<void>;
}

/** A flag that must be an integer of at least `min`, or absent. */
export function intFlag(
  ctx: CommandContext,
  command: string,
  name: string,
  min: number,
): number | undefined {
  const raw = ctx.flags[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (
    typeof raw !== 'string' ||
    !/^\d+$/.test(raw) ||
    !Number.isSafeInteger(value) ||
    value < min
  ) {
    throw new CliUsageError(
      `--${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`,
      command,
    );
  }
  return value;
}

/** A string flag's value, if given. */
export function stringFlag(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.flags[name];
  return typeof value === 'string' ? value : undefined;
}
