import type { Command, OptionSpec } from './command.js';

/** The options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec & { short?: string }> = {
  db: {
    type: 'string',
    value: 'folder',
    description: 'the LevelDB folder (default: $AGENTSTATE_DIR, else ./.agentstate)',
  },
  user: {
    type: 'string',
    value: 'U',
    description: 'the user whose partition to use (default: the anonymous bucket)',
  },
  json: { type: 'boolean', description: 'machine-readable output' },
  debug: { type: 'boolean', description: 'show stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => [
    `--${name}${o.value ? ` <${o.value}>` : ''}`,
    o.description,
  ]);
  const width = Math.max(...rows.map(([flag]) => flag!.length));
  return rows.map(([flag, text]) => `  ${flag!.padEnd(width)}  ${text}`);
}

/** `agentstate <command> --help`. */
export function commandHelp(command: Command): string {
  const args =
    command.args.map((a) => ` <${a}>`).join('') +
    (command.optionalArgs ?? []).map((a) => ` [<${a}>]`).join('');
  const lines = [
    `agentstate ${command.name}${args} [options]`,
    '',
    `${command.summary}.`,
    ...(command.details ? ['', command.details] : []),
    '',
    'Options:',
    ...(Object.keys(command.options).length ? optionLines(command.options) : []),
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Examples:',
    ...command.examples.map((e) => `  ${e}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** `agentstate --help`. */
export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = [
    'agentstate: operate agentstate sessions and workflows from a terminal',
    '',
    'Usage: agentstate <command> [arguments] [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    ...optionLines({
      ...GLOBAL_OPTIONS,
      version: { type: 'boolean', description: 'print the version (alone)' },
    }),
    '',
    'Exit codes: 0 ok, 1 failure, 2 usage error, 3 not found, 4 conflict.',
    'Run `agentstate <command> --help` for its options and an example.',
    '',
    'Examples:',
    '  agentstate sessions list --user alice --status active',
    '  agentstate approve conv-42 call_3_0 --user alice',
    '  agentstate workflows show order-7 --user alice',
  ];
  return `${lines.join('\n')}\n`;
}
