import type { SessionKey } from '../../persistence/session-store.js';
import type { SessionRuntime } from '../../sessions/session-runtime.js';
import { CliFailure, CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { openCliPostgres } from '../shared/cli-postgres.js';
import { notePartition, StoreHeldFailure } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { operator } from '../shared/operator.js';

/**
 * Cancels the session's run wherever it is: on PostgreSQL (`--postgres`) also a run another
 * process executes (the request goes through the store's decision inbox and that process stops
 * it); in a LevelDB folder, which one process holds at a time, a paused or crashed run (a
 * folder a running app holds is refused: the app cancels its own runs).
 */
async function run(ctx: CommandContext): Promise<void> {
  const url = stringFlag(ctx, 'postgres') ?? ctx.io.env['AGENTSTATE_POSTGRES_URL'];
  const by = operator();
  const sessionId = ctx.args['sessionId']!;
  if (!url && stringFlag(ctx, 'schema') !== undefined) {
    throw new CliUsageError('--schema is for a PostgreSQL store: give --postgres too', 'cancel');
  }
  if (url) {
    const pg = await openCliPostgres(url, stringFlag(ctx, 'schema'));
    try {
      await cancelAndSay(ctx, pg.runtime, { sessionId, userId: ctx.user }, by);
    } finally {
      await pg.close();
    }
    return;
  }
  const cli = await ctx.open().catch((error: unknown) => {
    if (!(error instanceof StoreHeldFailure)) throw error;
    throw new CliFailure(
      `the folder ${error.db} is held by a running app [STORE_LOCKED]: a LevelDB folder is one process's, so a run it executes is cancelled by that app (agent.cancel, or Cancel run in its inspector); nothing was changed`,
    );
  });
  await notePartition(cli, ctx.user, ctx.io);
  await cancelAndSay(ctx, cli.runtime, cli.key(sessionId), by);
}

async function cancelAndSay(
  ctx: CommandContext,
  runtime: SessionRuntime,
  key: SessionKey,
  by: string | undefined,
): Promise<void> {
  await runtime.cancel(key, by);
  const view = await runtime.getSession(key);
  // Still there: another process executes it and stops it when it reads the request.
  const requested = view.run !== undefined;
  const runId = view.run?.context.runId ?? view.lastRun?.runId;
  if (ctx.json) {
    ctx.io.out(
      json({
        sessionId: key.sessionId,
        userId: key.userId,
        ...(requested ? { requested: true, runId } : { lastRun: view.lastRun }),
        ...(by === undefined ? {} : { by }),
      }),
    );
    return;
  }
  ctx.io.out(
    requested
      ? `cancel of run ${runId ?? '?'} of ${key.sessionId} requested: the process executing it stops it\n`
      : `cancelled run ${view.lastRun?.runId ?? '?'} of ${key.sessionId}\n`,
  );
}

export const cancel: Command = {
  name: 'cancel',
  summary:
    "cancel a session's run (it ends `cancelled`): paused or crashed, or on PostgreSQL one another process executes",
  args: ['sessionId'],
  options: {
    postgres: {
      type: 'string',
      value: 'URL',
      description:
        'the PostgreSQL store instead of the folder (or $AGENTSTATE_POSTGRES_URL, which keeps a password off the command line)',
    },
    schema: {
      type: 'string',
      value: 'NAME',
      description: "the PostgreSQL schema of the store's tables (default: public)",
    },
  },
  examples: [
    'agentstate cancel conv-42 --user alice',
    'AGENTSTATE_POSTGRES_URL=postgres://ops@db/app agentstate cancel order-7 --user alice',
  ],
  run,
};
