import { continueRun } from '../../actions/continue-run.js';
import type { Agent } from '../../agent/agent.js';
import { isAgent } from '../shared/agent-export.js';
import { importAppModule } from '../shared/app-module.js';
import { CliFailure, CliUsageError } from '../shared/cli-errors.js';
import { printRun } from '../shared/run-summary.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

/**
 * The app's Agent from `--agent <module>`: the module's `agent` export, else its default
 * export. A path (relative to the working folder) or a package name.
 */
export async function loadAgent(spec: string, cwd: string): Promise<Agent> {
  const mod = await importAppModule(spec, cwd, 'agent');
  const agent = mod['agent'] ?? mod['default'];
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
