import type pg from 'pg';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';
import type { LeaseClock } from '../lease-table.js';
import type { RecordMigration } from '../migrations.js';

export interface PostgresSessionStoreOptions {
  /**
   * A pool the caller owns (and ends after closing the store). Give this or `connectionString`.
   * Size it to the runs a process executes at once plus a few: each step holds a connection
   * for one statement only.
   */
  pool?: pg.Pool | undefined;
  /** Connection string of a pool the store creates, and ends on `close()`. */
  connectionString?: string | undefined;
  /** Size of the pool the store creates from `connectionString`. @default 10 */
  poolSize?: number | undefined;
  /**
   * PostgreSQL schema (namespace) holding the tables, created if missing. Names are always
   * qualified, so nothing depends on `search_path` or other session state.
   * @default 'public'
   */
  schema?: string | undefined;
  /** Upgrade steps for records written with an older envelope schema version. */
  migrations?: readonly RecordMigration[] | undefined;
  /** Where lease expiry times come from. @default the system clock */
  clock?: LeaseClock | undefined;
}

const OPTION_NAMES = optionNames<PostgresSessionStoreOptions>({
  pool: true,
  connectionString: true,
  poolSize: true,
  schema: true,
  migrations: true,
  clock: true,
});

/** Checks `new PostgresSessionStore(options)`; mistakes are `TypeError`s naming the option. */
export function checkPostgresOptions(options: PostgresSessionStoreOptions): void {
  new OptionChecker('new PostgresSessionStore()', options, OPTION_NAMES)
    .implements('pool', 'pg.Pool', ['query', 'connect', 'end'])
    .nonEmptyString('connectionString')
    .positiveInteger('poolSize')
    .nonEmptyString('schema')
    .array('migrations')
    .implements('clock', 'Clock', ['now']);
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw new TypeError(
      'new PostgresSessionStore(): give exactly one of the options "pool" and "connectionString"',
    );
  }
}
