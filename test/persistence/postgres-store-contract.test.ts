import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { UnsupportedSchemaVersionError } from '../../src/errors/session-errors.js';
import { POSTGRES_SCHEMA_VERSION } from '../../src/persistence/postgres/postgres-schema.js';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import { ownerPart } from '../../src/persistence/session-keys.js';
import { describeStoreContract } from '../helpers/store-contract.js';
import { startPostgres, type PostgresCluster } from '../helpers/postgres-cluster.js';

let cluster: PostgresCluster;
let pool: pg.Pool;
let schemas = 0;

beforeAll(async () => {
  cluster = await startPostgres();
  pool = new pg.Pool({ connectionString: cluster.url, max: 8 });
});
afterAll(async () => {
  await pool?.end();
  await cluster?.destroy();
});

/** Each test gets its own schema: an empty database, in the same cluster. */
describeStoreContract('PostgresSessionStore', async (clock) => {
  const schema = `contract_${++schemas}`;
  const store = await PostgresSessionStore.open({ pool, schema, clock });
  const table = (name: string) => `"${schema}".${name}`;
  return {
    store,
    damageRecord: async (key, text) => {
      await pool.query(
        `UPDATE ${table('agentstate_sessions')} SET record = $3 WHERE owner = $1 AND session_id = $2`,
        [ownerPart(key.userId), key.sessionId, text],
      );
    },
    damageHistoryItem: async (key, position, text) => {
      await pool.query(
        `UPDATE ${table('agentstate_history')} SET item = $4 WHERE owner = $1 AND session_id = $2 AND seq = $3`,
        [ownerPart(key.userId), key.sessionId, position, text],
      );
    },
    cleanup: async () => {
      await store.close();
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    },
  };
});

describe('PostgresSessionStore schema', () => {
  it('creates its tables once, records the version, and refuses a newer schema', async () => {
    const first = await PostgresSessionStore.open({ pool, schema: 'versions' });
    const again = await PostgresSessionStore.open({ pool, schema: 'versions' });
    const { rows } = await pool.query('SELECT version FROM versions.agentstate_schema_versions');
    expect(rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    await Promise.all([first.close(), again.close()]);
    await pool.query('INSERT INTO versions.agentstate_schema_versions (version) VALUES (99)');
    const newer = PostgresSessionStore.open({ pool, schema: 'versions' });
    await expect(newer).rejects.toBeInstanceOf(UnsupportedSchemaVersionError);
    await expect(newer).rejects.toMatchObject({ found: 99, supported: POSTGRES_SCHEMA_VERSION });
  });

  it('owns a pool made from a connection string and ends it on close', async () => {
    const store = await PostgresSessionStore.open({
      connectionString: cluster.url,
      schema: 'owned',
      poolSize: 2,
    });
    await store.create({
      sessionId: 's',
      userId: 'u',
      status: 'active',
      createdAt: 1,
      updatedAt: 1,
      parentId: undefined,
      historyLength: 0,
      usage: { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
      machineVersion: 'm',
      snapshot: {},
    });
    await store.close();
    await expect(store.load({ sessionId: 's', userId: 'u' })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    // The caller's pool is not ended by a store that did not create it.
    const borrowed = await PostgresSessionStore.open({ pool, schema: 'owned' });
    await borrowed.close();
    await expect(borrowed.load({ sessionId: 's', userId: 'u' })).resolves.toMatchObject({
      version: 1,
    });
  });

  it('checks its options', () => {
    expect(() => new PostgresSessionStore({})).toThrow(
      /exactly one of the options "pool" and "connectionString"/,
    );
    expect(() => new PostgresSessionStore({ pool, conectionString: 'x' } as never)).toThrow(
      /did you mean "connectionString"/,
    );
  });
});
