import { cancelRun } from '../../actions/cancel-run.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import type { Command, CommandContext } from '../shared/command.js';

async function run(ctx: CommandContext): Promise<void> {
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  await cli.runtime.execute(key, cancelRun());
  const view = await cli.runtime.getSession(key);
  if (ctx.json) {
    ctx.io.out(json({ sessionId: key.sessionId, userId: key.userId, lastRun: view.lastRun }));
    return;
  }
  ctx.io.out(`cancelled run ${view.lastRun?.runId ?? '?'} of ${key.sessionId}\n`);
}

export const cancel: Command = {
  name: 'cancel',
  summary: "cancel a session's paused or crashed run (it ends `cancelled`)",
  args: ['sessionId'],
  options: {},
  examples: ['agentstate cancel conv-42 --user alice'],
  run,
};
