import { startInspector } from '../../inspect/start-inspector.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { notePartition } from '../shared/cli-store.js';
import { operator } from '../shared/operator.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import type { Agent } from '../../agent/agent.js';
import { loadAgent } from './resume.js';

/** Resolves when the process is told to stop (Ctrl-C, SIGTERM). */
const stopSignal = () =>
  new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => resolve(signal));
  });

/**
 * The app's agents of `--agent a.js[,b.js]` by name (one module each); two with one name are
 * a usage error. `undefined` without the flag.
 */
async function loadAgents(
  spec: string | undefined,
  cwd: string,
): Promise<Record<string, Agent> | undefined> {
  if (spec === undefined) return undefined;
  const agents: Record<string, Agent> = {};
  for (const one of spec.split(',').filter(Boolean)) {
    const agent = await loadAgent(one, cwd);
    if (Object.hasOwn(agents, agent.name)) {
      throw new CliUsageError(
        `--agent: two modules export an agent named "${agent.name}"`,
        'inspect',
      );
    }
    agents[agent.name] = agent;
  }
  if (Object.keys(agents).length === 0) {
    throw new CliUsageError('--agent needs a module', 'inspect');
  }
  return agents;
}

async function run(ctx: CommandContext): Promise<void> {
  const port = intFlag(ctx, 'inspect', 'port', 0);
  if (port !== undefined && port > 65535) {
    throw new CliUsageError(`--port must be at most 65535, got ${port}`, 'inspect');
  }
  const allUsers = ctx.flags['all-users'] === true;
  if (allUsers && ctx.user !== undefined) {
    throw new CliUsageError('--all-users and --user exclude each other', 'inspect');
  }
  const agents = await loadAgents(stringFlag(ctx, 'agent'), ctx.io.cwd);
  const cli = await ctx.open();
  if (!allUsers) await notePartition(cli, ctx.user, ctx.io);
  const first = agents && Object.values(agents)[0];
  const stopped = stopSignal();
  const inspector = await startInspector({
    // Without --agent the command line's runtime reads, and decisions are only recorded.
    ...(first ? { runtime: first.runtimeFor(cli.store), agents } : { runtime: cli.runtime }),
    recordOnly: !agents,
    ...(port === undefined ? {} : { port }),
    ...(ctx.user === undefined ? {} : { userId: ctx.user }),
    ...(allUsers ? { allUsers } : {}),
    operator: operator() || 'agentstate inspect',
  });
  const names = Object.keys(agents ?? {});
  ctx.io.out(
    ctx.json
      ? `${JSON.stringify({ url: inspector.url, port: inspector.port, agents: names })}\n`
      : `inspector at ${inspector.url} (${agents ? `approvals and resumes run with agent ${names.join(', ')}` : 'read and decide: decisions are recorded and the run continues when the app resumes it; --agent runs them here'}); the address holds its token: open it yourself, share it with no one; Ctrl-C stops it\n`,
  );
  await stopped;
  await inspector.close();
}

export const inspect: Command = {
  name: 'inspect',
  summary: 'serve the inspector page for the folder on 127.0.0.1 until Ctrl-C',
  args: [],
  options: {
    port: { type: 'string', value: 'N', description: 'the port (default: a free one)' },
    agent: {
      type: 'string',
      value: 'module',
      description:
        "the app's Agent module (several: a.js,b.js, one per top-level agent), so approvals and resumes from the page run with the agent of each session",
    },
    'all-users': { type: 'boolean', description: 'serve every user, one at a time in the page' },
  },
  examples: [
    'agentstate inspect --port 4321 --user alice',
    'agentstate inspect --agent ./dist/triage.js,./dist/refunder.js --user alice',
  ],
  details:
    'Stop the app first (one process per folder), or call startInspector inside the app instead.',
  run,
};
