import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
import {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from '../../src/persistence/postgres/postgres-session-store.js';
import { startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';

/** A PostgreSQL cluster for one test file, with a pool and stores in fresh schemas. */
export interface PostgresForTests {
  readonly cluster: PostgresCluster;
  readonly pool: pg.Pool;
  /** A new schema name (an empty database for one test). */
  schema(prefix: string): string;
  /** A store in a fresh schema; `cleanup` closes it and drops the schema. */
  freshStore(
    prefix: string,
    options?: Omit<PostgresSessionStoreOptions, 'pool' | 'schema'>,
  ): Promise<{ store: PostgresSessionStore; schema: string; cleanup: () => Promise<void> }>;
}

/** Starts the cluster in beforeAll and always stops it in afterAll. */
export function usePostgres(): PostgresForTests {
  let cluster: PostgresCluster | undefined;
  let pool: pg.Pool | undefined;
  let schemas = 0;
  beforeAll(async () => {
    cluster = await startPostgres();
    pool = new pg.Pool({ connectionString: cluster.url, max: 8 });
    pool.on('error', () => undefined); // idle clients are cut when the server restarts
  });
  afterAll(async () => {
    await pool?.end();
    await cluster?.destroy();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('PostgreSQL is not started (beforeAll failed)');
    return value;
  };
  const tests: PostgresForTests = {
    get cluster() {
      return ready(cluster);
    },
    get pool() {
      return ready(pool);
    },
    schema: (prefix) => `${prefix}_${++schemas}`,
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
