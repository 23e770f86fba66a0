import { deleteSession } from '../../actions/delete-session.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import type { Command, CommandContext } from '../shared/command.js';

async function run(ctx: CommandContext): Promise<void> {
  const purge = ctx.flags['purge'] === true;
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  await cli.runtime.execute(key, deleteSession({ purge }));
  cli.runtime.forget(key);
  if (ctx.json) {
    ctx.io.out(
      json({ sessionId: key.sessionId, userId: key.userId, deleted: true, purged: purge }),
    );
    return;
  }
  ctx.io.out(
    purge
      ? `purged ${key.sessionId}: its record, history and journal are gone\n`
      : `deleted ${key.sessionId} (a tombstone is kept; --purge removes the data)\n`,
  );
}

export const sessionsDelete: Command = {
  name: 'sessions delete',
  summary: 'delete a session: a tombstone, or with --purge its data too',
  args: ['sessionId'],
  options: {
    purge: { type: 'boolean', description: 'also remove the history, journal and record' },
  },
  examples: ['agentstate sessions delete conv-42 --user alice --purge'],
  run,
};
