import { forkSession } from '../../actions/fork-session.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { intFlag, type Command, type CommandContext } from '../shared/command.js';

async function run(ctx: CommandContext): Promise<void> {
  const at = intFlag(ctx, 'sessions fork', 'at', 0);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const info = await cli.runtime.execute(
    key,
    forkSession(ctx.args['newId'], at === undefined ? {} : { at }),
  );
  if (ctx.json) {
    ctx.io.out(json(info));
    return;
  }
  ctx.io.out(
    `forked ${info.sessionId} from ${key.sessionId} with ${info.historyLength} history item(s)\n`,
  );
}

export const sessionsFork: Command = {
  name: 'sessions fork',
  summary: 'a new session (same user) with the history up to --at, the parent unchanged',
  args: ['sessionId', 'newId'],
  options: {
    at: {
      type: 'string',
      value: 'N',
      description: 'keep items [0, N) (default: all; see `sessions history` for positions)',
    },
  },
  examples: ['agentstate sessions fork conv-42 conv-42-retry --at 6 --user alice'],
  details:
    'A paused run is not carried: the fork ends before its input. A run in flight refuses the fork.',
  run,
};
