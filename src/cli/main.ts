import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';
import { packageVersion } from '../core/package-version.js';
import { closestName } from '../validation/closest-name.js';
import { CliUsageError, EXIT, errorLines, exitCodeOf } from './shared/cli-errors.js';
import { Painter } from './shared/cli-format.js';
import { GLOBAL_OPTIONS, commandHelp, mainHelp } from './shared/cli-help.js';
import { colorEnabled, type CliIo } from './shared/cli-io.js';
import { openCliStore, type CliStore } from './shared/cli-store.js';
import type { Command, CommandContext } from './shared/command.js';
import { COMMANDS } from './commands/index.js';

/** The command the first words of `argv` name (up to three: `eval dataset add`), and the rest. */
function findCommand(argv: string[]): { command: Command; rest: string[] } {
  // The leading words before any flag (a flag's value is no command word).
  const flag = argv.findIndex((w) => w.startsWith('-'));
  const words = argv.slice(0, flag < 0 ? 3 : Math.min(3, flag));
  for (const take of [3, 2, 1]) {
    const name = words.slice(0, take).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command && words.length >= take) return { command, rest: argv.slice(take) };
  }
  // The words name a group of commands (`schedules`, `eval dataset`): which one?
  for (const take of [2, 1]) {
    if (words.length < take) continue;
    const group = words.slice(0, take).join(' ');
    const subcommands = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) =>
      c.name.slice(group.length + 1),
    );
    if (subcommands.length === 1 && words.length === take) {
      throw new CliUsageError(`${group}: missing the subcommand (${group} ${subcommands[0]})`);
    }
    if (subcommands.length > 1 && words.length === take) {
      const last = subcommands.pop()!;
      throw new CliUsageError(`${group}: which one? ${subcommands.join(', ')} or ${last}`);
    }
  }
  const tried = words.slice(0, 2).join(' ');
  const guess = closestName(
    tried,
    COMMANDS.map((c) => c.name),
  );
  throw new CliUsageError(
    `unknown command "${tried}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
  );
}

function parse(command: Command, rest: string[]) {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries({ ...GLOBAL_OPTIONS, ...command.options })) {
    options[name] = { type: o.type, ...('short' in o && o.short ? { short: o.short } : {}) };
  }
  try {
    return parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, '');
    throw new CliUsageError(message, command.name);
  }
}

/**
 * Runs one command line (`argv` without `node` and the script) and returns its exit code.
 * Output goes through `io`; an error becomes one line on stderr.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const debug = argv.includes('--debug');
  let store: CliStore | undefined;
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.out(mainHelp(COMMANDS));
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    if (argv[0] === '--version' || argv[0] === '-v') {
      io.out(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    const { command, rest } = findCommand(argv);
    const { values, positionals } = parse(command, rest);
    if (values['help'] === true) {
      io.out(commandHelp(command));
      return EXIT.ok;
    }
    if (positionals.length < command.args.length) {
      const missing = command.args.slice(positionals.length).map((a) => `<${a}>`);
      throw new CliUsageError(`missing ${missing.join(' ')}`, command.name);
    }
    const names = [...command.args, ...(command.optionalArgs ?? [])];
    if (positionals.length > names.length) {
      throw new CliUsageError(`unexpected argument "${positionals[names.length]}"`, command.name);
    }
    const user = values['user'];
    if (user === '') throw new CliUsageError('--user must not be empty', command.name);
    const dbFlag = values['db'];
    const db = resolve(
      io.cwd,
      typeof dbFlag === 'string' ? dbFlag : io.env['AGENTSTATE_DIR'] || '.agentstate',
    );
    const ctx: CommandContext = {
      io,
      painter: new Painter(colorEnabled(io)),
      json: values['json'] === true,
      db,
      user: typeof user === 'string' ? user : undefined,
      args: Object.fromEntries(positionals.map((value, i) => [names[i]!, value])),
      flags: values as Record<string, string | boolean | undefined>,
      open: async () => {
        store ??= await openCliStore(db, typeof user === 'string' ? user : undefined);
        return store;
      },
    };
    await command.run(ctx);
    return EXIT.ok;
  } catch (error) {
    io.err(errorLines(error, debug));
    return exitCodeOf(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
}
