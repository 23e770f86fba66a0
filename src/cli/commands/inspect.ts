import { startInspector } from '../../inspect/start-inspector.js';
import { CliUsageError } from '../cli-errors.js';
import { notePartition } from '../cli-store.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../command.js';
import { loadAgent } from './resume.js';

/** Resolves when the process is told to stop (Ctrl-C, SIGTERM). */
const stopSignal = () =>
  new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => resolve(signal));
  });

async function run(ctx: CommandContext): Promise<void> {
  const port = intFlag(ctx, 'inspect', 'port', 0);
  if (port !== undefined && port > 65535) {
    throw new CliUsageError(`--port must be at most 65535, got ${port}`, 'inspect');
  }
  const allUsers = ctx.flags['all-users'] === true;
  if (allUsers && ctx.user !== undefined) {
    throw new CliUsageError('--all-users and --user exclude each other', 'inspect');
  }
  const spec = stringFlag(ctx, 'agent');
  const agent = spec === undefined ? undefined : await loadAgent(spec, ctx.io.cwd);
  const cli = await ctx.open();
  if (!allUsers) await notePartition(cli, ctx.user, ctx.io);
  const runtime = agent ? agent.runtimeFor(cli.store) : cli.runtime;
  const stopped = stopSignal();
  const inspector = await startInspector({
    runtime,
    ...(port === undefined ? {} : { port }),
    ...(ctx.user === undefined ? {} : { userId: ctx.user }),
    ...(allUsers ? { allUsers } : {}),
  });
  ctx.io.out(
    ctx.json
      ? `${JSON.stringify({ url: inspector.url, port: inspector.port })}\n`
      : `inspector at ${inspector.url} (${agent ? "the app's agent runs resumes" : 'read and decide; resumes need --agent'}); the address holds its token: open it yourself, share it with no one; Ctrl-C stops it\n`,
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
      description: "the app's Agent module, so approvals and resumes from the page can run",
    },
    'all-users': { type: 'boolean', description: 'serve every user, one at a time in the page' },
  },
  examples: ['agentstate inspect --port 4321 --user alice'],
  details:
    'Stop the app first (one process per folder), or call startInspector inside the app instead.',
  run,
};
