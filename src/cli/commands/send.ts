import { isWhileBusy, WHILE_BUSY_EXPECTED } from '../../core/busy-policy.js';
import { MessageQueuedError } from '../../errors/message-queued-error.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { printRun } from '../shared/run-summary.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { AGENT_MODULE_OPTION, loadAgent } from './resume.js';

async function run(ctx: CommandContext): Promise<void> {
  const spec = stringFlag(ctx, 'agent');
  if (spec === undefined) throw new CliUsageError('--agent <module> is required', 'send');
  // Checked before anything is opened: a bad policy stores nothing.
  const whileBusy = stringFlag(ctx, 'while-busy');
  if (whileBusy !== undefined && !isWhileBusy(whileBusy)) {
    throw new CliUsageError(
      `--while-busy must be ${WHILE_BUSY_EXPECTED}, got ${JSON.stringify(whileBusy)}`,
      'send',
    );
  }
  const agent = await loadAgent(spec, ctx.io.cwd);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  try {
    const result = await agent.run(ctx.args['message']!, {
      ...key,
      store: cli.store,
      ...(whileBusy === undefined ? {} : { whileBusy }),
    });
    printRun(ctx, result, 'paused');
  } catch (error) {
    if (!(error instanceof MessageQueuedError)) throw error;
    // Another process runs the session: it (or the next run) answers the stored message.
    const { messageId, policy } = error;
    if (ctx.json) ctx.io.out(json({ queued: true, sessionId: key.sessionId, messageId, policy }));
    else ctx.io.out(`message ${messageId} queued (${policy}): ${error.message}\n`);
  }
}

export const send: Command = {
  name: 'send',
  summary: "send a message to a session with the app's agent (its tools and model)",
  args: ['sessionId', 'message'],
  options: {
    agent: AGENT_MODULE_OPTION,
    'while-busy': {
      type: 'string',
      value: 'policy',
      description:
        "what the message does while the session's run is busy: reject, queue, steer or interrupt (omitted: the agent's whileBusy, else reject)",
    },
  },
  examples: [
    "agentstate send conv-42 'Any news?' --agent ./dist/agent.js --user alice --while-busy queue",
  ],
  run,
};
