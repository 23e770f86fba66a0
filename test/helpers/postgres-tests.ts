import { afterAll, beforeAll, inject } from 'vitest';
import pg from 'pg';
import {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from '../../src/persistence/postgres/postgres-session-store.js';
import { startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';

/** PostgreSQL for one test file: a database of its own, a pool, and stores in fresh schemas. */
export interface PostgresForTests {
  /** The file's database. */
  readonly url: string;
  readonly pool: pg.Pool;
  /** A new schema name (an empty database for one test). */
  schema(prefix: string): string;
  /**
   * The backends LISTENing on this file's database (the dedicated connections of inbox
   * subscriptions); another file's, on its own database, are not counted (nor cut by a test).
   */
  listeners(): Promise<number[]>;
  /** A store in a fresh schema; `cleanup` closes it and drops the schema. */
  freshStore(
    prefix: string,
    options?: Omit<PostgresSessionStoreOptions, 'pool' | 'schema'>,
  ): Promise<{ store: PostgresSessionStore; schema: string; cleanup: () => Promise<void> }>;
}

/** A file that stops and restarts its server has one of its own. */
export interface OwnPostgresForTests extends PostgresForTests {
  readonly cluster: PostgresCluster;
}

/**
 * A database of this file's own on the run's PostgreSQL server (started once per run by
 * test/global-setup.ts), made in beforeAll and dropped in afterAll.
 */
export function usePostgres(): PostgresForTests {
  const server = inject('postgresUrl');
  const database = `file_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const url = new URL(server);
  url.pathname = `/${database}`;
  return usePool(
    url.toString(),
    () => admin((c) => c.query(`CREATE DATABASE "${database}"`)),
    () => admin((c) => c.query(`DROP DATABASE "${database}" WITH (FORCE)`)),
  );
}

/** A PostgreSQL server of this file's own, for a file that stops and restarts it. */
export function useOwnPostgres(): OwnPostgresForTests {
  let cluster: PostgresCluster | undefined;
  const tests = usePool(
    () => ready(cluster).url,
    async () => {
      cluster = await startPostgres();
    },
    async () => {
      await cluster?.destroy();
    },
  );
  return Object.defineProperty(tests, 'cluster', {
    get: () => ready(cluster),
  }) as OwnPostgresForTests;
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('PostgreSQL is not started (beforeAll failed)');
  return value;
}

function usePool(
  url: string | (() => string),
  open: () => Promise<unknown>,
  close: () => Promise<unknown>,
): PostgresForTests {
  const urlNow = typeof url === 'string' ? () => url : url;
  let pool: pg.Pool | undefined;
  let schemas = 0;
  beforeAll(async () => {
    await open();
    pool = new pg.Pool({ connectionString: urlNow(), max: 8 });
    pool.on('error', () => undefined); // idle clients are cut when the server restarts
  });
  afterAll(async () => {
    await pool?.end();
    await close();
  });
  const tests: PostgresForTests = {
    get url() {
      return urlNow();
    },
    get pool() {
      return ready(pool);
    },
    schema: (prefix) => `${prefix}_${++schemas}`,
    async listeners() {
      const { rows } = await tests.pool.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND datname = current_database() AND pid <> pg_backend_pid()",
      );
      return rows.map((r) => r.pid);
    },
    async freshStore(prefix, options = {}) {
      const schema = tests.schema(prefix);
      const store = await PostgresSessionStore.open({ ...options, pool: tests.pool, schema });
      return {
        store,
        schema,
        cleanup: async () => {
          await store.close();
          await tests.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        },
      };
    },
  };
  return tests;
}
