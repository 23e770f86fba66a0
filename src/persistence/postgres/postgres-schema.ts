import type pg from 'pg';
import { UnsupportedSchemaVersionError } from '../../errors/session-errors.js';
import { StoreNotFoundError } from '../../errors/store-not-found-error.js';
import { auditTable } from './postgres-audit.js';
import { addApprovalDeadlines } from './postgres-deadlines.js';
import { addListOrders } from './postgres-list-orders.js';
import { addListKinds } from './postgres-list-kinds.js';
import { addMemoryTables } from './postgres-memory-schema.js';
import { addScheduleTable } from './postgres-schedules.js';

/**
 * The tables of a PostgreSQL session store, created and migrated by the store itself. Every
 * table's key starts with `owner` (the user partition, `session-keys.ts`'s owner part: `a` for
 * the anonymous bucket, `u:<encoded userId>` for a named user), and every query filters on it.
 * Text keys use the "C" collation, so listing order is byte order, as in the key-value stores.
 *
 * To add an indexed value written with each step (as version 2 did for the approval deadline):
 * append a migration step below (`ALTER TABLE ... ADD COLUMN`, or a new table keyed by
 * `(owner, session_id, ...)`, plus a backfill from the stored records), then write it in the
 * save statement of `postgres-statements.ts` (one more column or one more CTE of it).
 */
export const POSTGRES_SCHEMA_VERSION = 10;

/** One schema version's step: its DDL (and any backfill) on the migrating transaction. */
type MigrationStep = (client: pg.ClientBase, t: (name: string) => string) => Promise<unknown>;

/** The steps of each schema version, in order; `t(name)` is the qualified table name. */
const MIGRATIONS: readonly MigrationStep[] = [
  (client, t) =>
    client.query(`
    CREATE TABLE ${t('agentstate_sessions')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      status text NOT NULL,
      history_length integer NOT NULL,
      record text NOT NULL,
      listing text NOT NULL,
      PRIMARY KEY (owner, session_id)
    );
    CREATE TABLE ${t('agentstate_history')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      seq integer NOT NULL,
      item text NOT NULL,
      PRIMARY KEY (owner, session_id, seq)
    );
    CREATE TABLE ${t('agentstate_journal')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      run_id text COLLATE "C" NOT NULL,
      step integer NOT NULL,
      entry text NOT NULL,
      PRIMARY KEY (owner, session_id, run_id, step)
    );
    CREATE TABLE ${t('agentstate_totals')} (
      owner text COLLATE "C" PRIMARY KEY,
      turns bigint NOT NULL,
      input_tokens double precision NOT NULL,
      output_tokens double precision NOT NULL,
      cost_usd double precision NOT NULL
    );
    CREATE TABLE ${t('agentstate_leases')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      holder text NOT NULL,
      token bigint NOT NULL,
      expires_at bigint NOT NULL,
      released boolean NOT NULL,
      PRIMARY KEY (owner, session_id)
    );
    CREATE INDEX ON ${t('agentstate_leases')} (owner, expires_at) WHERE NOT released;
  `),
  // 2: the approval-deadline index, a column of the session row (see postgres-deadlines.ts).
  addApprovalDeadlines,
  // 3: the decision inbox (see postgres-decisions.ts).
  (client, t) =>
    client.query(`
    CREATE TABLE ${t('agentstate_decisions')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      id bigserial NOT NULL,
      run_id text COLLATE "C" NOT NULL,
      decisions text NOT NULL,
      at bigint NOT NULL,
      PRIMARY KEY (owner, session_id, id)
    );
    CREATE INDEX agentstate_decisions_order ON ${t('agentstate_decisions')} (id);
  `),
  // 4: the audit log (see postgres-audit.ts).
  (client, t) => client.query(auditTable(t)),
  // 5: the message inbox (see postgres-messages.ts).
  (client, t) =>
    client.query(`
    CREATE TABLE ${t('agentstate_messages')} (
      owner text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      id bigserial NOT NULL,
      message text NOT NULL,
      at bigint NOT NULL,
      PRIMARY KEY (owner, session_id, id)
    );
  `),
  // 6: what spares a message two statements (see postgres-leases.ts, postgres-session-watch.ts):
  // the count of messages queued under each lease row (a run's release compares it with its
  // grant's), and the count of watchers of each session (a save NOTIFYs only when watched).
  (client, t) =>
    client.query(`
    ALTER TABLE ${t('agentstate_leases')} ADD COLUMN queued bigint NOT NULL DEFAULT 0;
    ALTER TABLE ${t('agentstate_sessions')} ADD COLUMN watchers integer NOT NULL DEFAULT 0;
  `),
  // 7: the list orders, a column and an index per order (see postgres-list-orders.ts).
  addListOrders,
  // 8: the kinds of record (sessions, workflow instances), a column and partial indexes per
  // kind (see postgres-list-kinds.ts).
  addListKinds,
  // 9: memory across sessions, its tables (see postgres-memory-schema.ts).
  addMemoryTables,
  // 10: schedules and their next-tick index (see postgres-schedules.ts).
  addScheduleTable,
];

/** Double-quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Brings the schema to {@link POSTGRES_SCHEMA_VERSION} inside one transaction holding an
 * advisory lock (processes starting together migrate once). A database migrated by a newer
 * agentstate raises `UnsupportedSchemaVersionError` and is left untouched. Without `create`, a
 * schema that holds no store is `StoreNotFoundError` and nothing is created.
 */
export async function migrateSchema(
  pool: pg.Pool,
  schema: string,
  target = POSTGRES_SCHEMA_VERSION,
  create = true,
): Promise<void> {
  const t = (name: string): string => `${quoteIdent(schema)}.${quoteIdent(name)}`;
  const versions = t('agentstate_schema_versions');
  const client = await pool.connect();
  // A checked-out client has no 'error' listener of the pool's: the server ending it (while
  // a statement runs, or between two) is then uncaught. Here it is the failed statement's.
  client.on('error', ignoreClientError);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentstate:${schema}`]);
    if (!create) {
      const { rows: found } = await client.query<{ versions: string | null }>(
        'SELECT to_regclass($1)::text AS versions',
        [versions],
      );
      if (!found[0]?.versions) throw new StoreNotFoundError(schema);
    }
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${versions} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      `SELECT max(version) AS v FROM ${versions}`,
    );
    const current = rows[0]?.v ?? 0;
    if (current > POSTGRES_SCHEMA_VERSION) {
      throw new UnsupportedSchemaVersionError(
        `${schema}.agentstate_schema_versions`,
        current,
        POSTGRES_SCHEMA_VERSION,
      );
    }
    for (let version = current + 1; version <= target; version += 1) {
      await MIGRATIONS[version - 1]!(client, t);
      await client.query(`INSERT INTO ${versions} (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
    client.off('error', ignoreClientError);
  }
}

/** A migrating client's 'error' event: the statement under way fails with it. */
function ignoreClientError(): void {}
