import type { SessionStore } from '../../persistence/session-store.js';
import type { SessionRuntime } from '../../sessions/session-runtime.js';
import { cliRuntime } from './cli-store.js';

/** A PostgreSQL store opened for one command, with the command line's runtime on it. */
export interface CliPostgres {
  store: SessionStore;
  runtime: SessionRuntime;
  close(): Promise<void>;
}

/**
 * Opens the PostgreSQL store at `connectionString` (tables in `schema`), loading the store (and
 * the `pg` package, an optional peer dependency) only when a command asks for it. Many
 * processes share such a store: a run another process executes is reached through its decision
 * inbox. A connection failure is `StoreUnavailableError`; a schema that holds no store is
 * `StoreNotFoundError` (exit 3), and nothing is created.
 */
export async function openCliPostgres(
  connectionString: string,
  schema: string | undefined,
): Promise<CliPostgres> {
  // Loaded on demand: a command without a PostgreSQL store never loads `pg`.
  const { PostgresSessionStore } =
    await import('../../persistence/postgres/postgres-session-store.js');
  const store = await PostgresSessionStore.open({
    connectionString,
    poolSize: 2,
    create: false, // an operator's command works on an app's store: a typo'd schema is not found
    ...(schema === undefined ? {} : { schema }),
  });
  return { store, runtime: cliRuntime(store), close: () => store.close() };
}
