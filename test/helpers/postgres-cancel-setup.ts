import { afterEach, expect } from 'vitest';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import { JsonLineChild } from './json-line-child.js';
import type { PostgresForTests } from './postgres-tests.js';

/**
 * What the tests of a cancel across processes on PostgreSQL share (test/persistence/postgres/postgres-cancel.int.test.ts,
 * test/cli/cli-cancel-live.int.test.ts): worker processes of the triage app
 * (test/helpers/pg-cancel-worker.ts), stores, the LISTENing backends, the inbox's rows; all
 * closed after each test.
 */
export function usePostgresCancel(pgt: PostgresForTests) {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    /** Starts a worker process of the app on `schema` whose leases name `owner`. */
    worker: async (schema: string, owner: string): Promise<JsonLineChild> => {
      const child = await JsonLineChild.start('test/helpers/pg-cancel-worker.ts', [
        pgt.url,
        schema,
        owner,
      ]);
      cleanups.push(() => child.stop());
      expect(await child.next('ready')).toMatchObject({ event: 'ready' });
      return child;
    },
    /** A store object on `schema` (another "process" as far as the store knows). */
    openStore: async (schema: string): Promise<PostgresSessionStore> => {
      const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
      cleanups.push(() => store.close());
      return store;
    },
    listeners: () => pgt.listeners(),
    /** The requests in the decision inbox of `schema`. */
    inboxRows: async (schema: string): Promise<number> => {
      const { rows } = await pgt.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".agentstate_decisions`,
      );
      return rows[0]!.n;
    },
  };
}
