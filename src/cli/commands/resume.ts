import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { continueRun } from '../../actions/continue-run.js';
import type { Agent } from '../../agent/agent.js';
import { CliFailure, CliUsageError } from '../shared/cli-errors.js';
import { printRun } from '../shared/run-summary.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

/** Whether `value` looks like an agentstate `Agent` (from this copy of the package or another). */
function isAgent(value: unknown): value is Agent {
  const v = value as Partial<Agent> | null | undefined;
  return typeof v?.runtimeFor === 'function' && typeof v.run === 'function';
}

/** What Node says when it cannot run a TypeScript file by itself (by version: no type stripping, or syntax it cannot strip). */
const TYPESCRIPT_REFUSALS: readonly unknown[] = [
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
];

/** Imports the module at `url`; a TypeScript file Node cannot load is a usage error saying how to. */
async function importAgentModule(spec: string, url: string) {
  try {
    return (await import(url)) as { agent?: unknown; default?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (/\.[cm]?tsx?$/.test(new URL(url).pathname) && TYPESCRIPT_REFUSALS.includes(code)) {
      throw new CliUsageError(
        `--agent: ${spec} is TypeScript, which node does not load by itself: build it to .js and give that file, or run the command line under a TypeScript loader (npx tsx node_modules/agentstate/dist/cli.js ...)`,
      );
    }
    throw error;
  }
}

/**
 * The app's Agent from `--agent <module>`: the module's `agent` export, else its default
 * export. A path (relative to the working folder) or a package name.
 */
export async function loadAgent(spec: string, cwd: string): Promise<Agent> {
  const asPath = isAbsolute(spec) ? spec : resolve(cwd, spec);
  let url: string;
  if (existsSync(asPath)) url = pathToFileURL(asPath).href;
  else {
    try {
      url = pathToFileURL(createRequire(join(cwd, 'index.js')).resolve(spec)).href;
    } catch {
      throw new CliFailure(`--agent: no module ${spec} (a file path or an installed package)`);
    }
  }
  const mod = await importAgentModule(spec, url);
  const agent = mod.agent ?? mod.default;
  if (!isAgent(agent)) {
    throw new CliFailure(`--agent: ${spec} exports no Agent as \`agent\` or as its default export`);
  }
  return agent;
}

async function run(ctx: CommandContext): Promise<void> {
  const spec = stringFlag(ctx, 'agent');
  if (spec === undefined) throw new CliUsageError('--agent <module> is required', 'resume');
  const agent = await loadAgent(spec, ctx.io.cwd);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const result = await agent.runtimeFor(cli.store).execute(key, continueRun());
  printRun(ctx, result, 'paused again');
}

/** `--agent <module>`, the app's agent of `resume` and `send`. */
export const AGENT_MODULE_OPTION = {
  type: 'string',
  value: 'module',
  description:
    "a module exporting the app's Agent as `agent` (or default); it must not open --db itself",
} as const;

export const resume: Command = {
  name: 'resume',
  summary: "continue a session's paused or crashed run with the app's agent (its tools and model)",
  args: ['sessionId'],
  options: {
    agent: AGENT_MODULE_OPTION,
  },
  examples: ['agentstate resume conv-42 --agent ./dist/agent.js --user alice'],
  run,
};
