import type { SessionKey } from '../../persistence/session-store.js';
import type { SessionRuntime } from '../../sessions/session-runtime.js';
import { CliFailure } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { StoreHeldFailure } from '../shared/cli-store.js';
import { POSTGRES_OPTIONS, withCommandStore } from '../shared/command-store.js';
import type { Command, CommandContext } from '../shared/command.js';
import { operator } from '../shared/operator.js';

/**
 * Cancels the session's run wherever it is: on PostgreSQL (`--postgres`) also a run another
 * process executes (the request goes through the store's decision inbox and that process stops
 * it); in a LevelDB folder, which one process holds at a time, a paused or crashed run (a
 * folder a running app holds is refused: the app cancels its own runs).
 */
async function run(ctx: CommandContext): Promise<void> {
  const by = operator();
  const sessionId = ctx.args['sessionId']!;
  const openFolder = () =>
    ctx.open().catch((error: unknown) => {
      if (!(error instanceof StoreHeldFailure)) throw error;
      throw new CliFailure(
        `the folder ${error.db} is held by a running app [STORE_LOCKED]: a LevelDB folder is one process's, so a run it executes is cancelled by that app (agent.cancel, or Cancel run in its inspector); nothing was changed`,
      );
    });
  await withCommandStore(
    ctx,
    'cancel',
    ({ runtime, key }) => cancelAndSay(ctx, runtime, key(sessionId), by),
    { openFolder },
  );
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
  options: POSTGRES_OPTIONS,
  examples: [
    'agentstate cancel conv-42 --user alice',
    'AGENTSTATE_POSTGRES_URL=postgres://ops@db/app agentstate cancel order-7 --user alice',
  ],
  run,
};
