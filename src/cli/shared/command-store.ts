import { storeOwners } from '../../persistence/kv/store-owners.js';
import type { SessionKey, SessionStore } from '../../persistence/session-store.js';
import type { SessionRuntime } from '../../sessions/session-runtime.js';
import { CliUsageError } from './cli-errors.js';
import { openCliPostgres } from './cli-postgres.js';
import { notePartition } from './cli-store.js';
import { stringFlag, type CommandContext, type OptionSpec } from './command.js';

/** `--postgres` and `--schema`: the commands that work on a PostgreSQL store too. */
export const POSTGRES_OPTIONS: Record<'postgres' | 'schema', OptionSpec> = {
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
};

/** The store a command works on: the folder's, or a PostgreSQL one (`--postgres`). */
export interface CommandStore {
  store: SessionStore;
  /** The command line's runtime on it: it runs no model and no tool. */
  runtime: SessionRuntime;
  /** `true` on PostgreSQL: other processes share the store (its decision inbox reaches them). */
  shared: boolean;
  /** The key of `sessionId` in the partition the command was given (`--user`). */
  key: (sessionId: string) => SessionKey;
  /** The folder's partitions (`--all-users`); absent on PostgreSQL. */
  owners?: (() => Promise<{ userId: string | undefined }[]>) | undefined;
}

/**
 * Opens the store of a command that takes {@link POSTGRES_OPTIONS}: PostgreSQL with `--postgres`
 * (or `$AGENTSTATE_POSTGRES_URL`), else the LevelDB folder (saying on stderr when the command
 * reaches the anonymous bucket of a folder with named users). `use` runs with it open; it is
 * closed when `use` ends.
 */
export async function withCommandStore<T>(
  ctx: CommandContext,
  command: string,
  use: (opened: CommandStore) => Promise<T>,
  how: {
    /** Opens the folder (default: `ctx.open()`), for a command that words its failure itself. */
    openFolder?: () => ReturnType<CommandContext['open']>;
    /** `false`: no note about the anonymous bucket (a command reading every partition). */
    notePartition?: boolean;
  } = {},
): Promise<T> {
  const url = stringFlag(ctx, 'postgres') ?? ctx.io.env['AGENTSTATE_POSTGRES_URL'];
  if (!url && stringFlag(ctx, 'schema') !== undefined) {
    throw new CliUsageError('--schema is for a PostgreSQL store: give --postgres too', command);
  }
  const key = (sessionId: string): SessionKey => ({ sessionId, userId: ctx.user });
  if (url) {
    const pg = await openCliPostgres(url, stringFlag(ctx, 'schema'));
    try {
      return await use({ store: pg.store, runtime: pg.runtime, shared: true, key });
    } finally {
      await pg.close();
    }
  }
  const cli = await (how.openFolder ?? (() => ctx.open()))();
  if (how.notePartition !== false) await notePartition(cli, ctx.user, ctx.io);
  const owners = () => storeOwners(cli.store.backend);
  return use({ store: cli.store, runtime: cli.runtime, shared: false, key, owners });
}
