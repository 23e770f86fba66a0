import type pg from 'pg';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';
import type { LeaseClock } from '../lease-table.js';
import type { RecordMigration } from '../migrations.js';

export interface PostgresSessionStoreOptions {
  /**
   * A pool the caller owns (and ends after closing the store). Give this or `connectionString`.
   * Size it to the runs a process executes at once plus a few: each step holds a connection
   * for one statement only. While the store is open it listens for the pool's 'error' events
   * (an idle connection the server ended), which `pg` would otherwise make uncaught.
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
  /**
   * Whether opening creates the schema and tables when `schema` holds no store. `false` for a
   * process that only operates an existing store (the command line): a schema without one (a
   * typo) is then `StoreNotFoundError`, and nothing is created. An existing store is migrated
   * either way.
   * @default true
   */
  create?: boolean | undefined;
  /** Upgrade steps for records written with an older envelope schema version. */
  migrations?: readonly RecordMigration[] | undefined;
  /** Where lease expiry times come from. @default the system clock */
  clock?: LeaseClock | undefined;
  /**
   * How long (ms) the store's one LISTEN connection stays open once nothing needs it (no run
   * executing here, no scheduler, no `agent.attach` reader), so runs one after another reuse it
   * instead of opening a backend each. Lingering it never keeps the process alive (its socket
   * and timer are unref'd), and `close()` ends it at once. `0` ends it as soon as the last
   * watcher leaves or goes idle. At most 2,147,483,647 (a timer's limit).
   * @default 10_000
   */
  listenLingerMs?: number | undefined;
  /**
   * How long (ms) `close()` waits for the server's goodbyes. A server that stopped answering
   * (a network partition: packets dropped, not refused) never sends one: past this bound the
   * store destroys the sockets of the connections it made (its own pool's, its LISTEN
   * connection's), so `close()` settles and releases them; an operation after it fails typed.
   * At most 2,147,483,647 (a timer's limit).
   * @default 5_000
   */
  closeTimeoutMs?: number | undefined;
  /**
   * Without pgvector, how many bytes of vectors (4 a dimension) the store keeps in this process
   * for its exact memory search: the scopes searched last stay, older ones are built again at
   * their next search. With pgvector the server's index answers and nothing is kept here.
   * @default 536_870_912 (512 MiB)
   */
  memoryCacheBytes?: number | undefined;
  /**
   * What `forgetMemories` does after deleting: `'vacuum'` runs `VACUUM` on the memory tables
   * (the erased rows' dead tuples leave their pages' line pointers and indexes at once, though
   * their bytes stay in the freed space of the data files until PostgreSQL writes over them);
   * `'rewrite'` runs `VACUUM FULL`, which writes the tables anew without them (no byte of the
   * erased memories left in any of the tables' files) but holds an exclusive lock on the
   * memory tables while it copies every user's memories. See docs/operations/postgres.md.
   * @default 'vacuum'
   */
  memoryErase?: 'vacuum' | 'rewrite' | undefined;
  /**
   * Test-only: a save does not check its lease (no fencing), so a writer whose lease was taken
   * over still writes. Never set it in an app: it exists so that a test can show a checker (the
   * many-writers simulation, `simulateWriters`) finds the stale writes fencing prevents.
   * @default false @internal
   */
  unsafeSkipFencing?: boolean | undefined;
}

const OPTION_NAMES = optionNames<PostgresSessionStoreOptions>({
  pool: true,
  connectionString: true,
  poolSize: true,
  schema: true,
  create: true,
  migrations: true,
  clock: true,
  listenLingerMs: true,
  closeTimeoutMs: true,
  memoryCacheBytes: true,
  memoryErase: true,
  unsafeSkipFencing: true,
});

/** The longest delay a Node timer keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/** Checks `new PostgresSessionStore(options)`; mistakes are `TypeError`s naming the option. */
export function checkPostgresOptions(options: PostgresSessionStoreOptions): void {
  new OptionChecker('new PostgresSessionStore()', options, OPTION_NAMES)
    .implements('pool', 'pg.Pool', ['query', 'connect', 'end'])
    .nonEmptyString('connectionString')
    .positiveInteger('poolSize')
    .nonEmptyString('schema')
    .check('create', 'a boolean', (v) => typeof v === 'boolean')
    .array('migrations')
    .implements('clock', 'Clock', ['now'])
    .check(
      'listenLingerMs',
      `an integer from 0 to ${MAX_TIMER_MS}`,
      (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TIMER_MS,
    )
    .check(
      'closeTimeoutMs',
      `an integer from 1 to ${MAX_TIMER_MS}`,
      (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_TIMER_MS,
    )
    .check(
      'memoryCacheBytes',
      'a non-negative safe integer',
      (v) => Number.isSafeInteger(v) && (v as number) >= 0,
    )
    .check('memoryErase', '"vacuum" or "rewrite"', (v) => v === 'vacuum' || v === 'rewrite')
    .check('unsafeSkipFencing', 'a boolean', (v) => typeof v === 'boolean');
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw new TypeError(
      'new PostgresSessionStore(): give exactly one of the options "pool" and "connectionString"',
    );
  }
}
