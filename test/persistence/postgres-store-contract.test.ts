import { describe, expect, it } from 'vitest';
import { UnsupportedSchemaVersionError } from '../../src/errors/session-errors.js';
import { POSTGRES_SCHEMA_VERSION } from '../../src/persistence/postgres/postgres-schema.js';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import { ownerPart } from '../../src/persistence/session-keys.js';
import { describeStoreContract } from '../helpers/store-contract.js';
import { usePostgres } from '../helpers/postgres-tests.js';

const pgt = usePostgres();

/** Each test gets its own schema: an empty database, in the same cluster. */
describeStoreContract('PostgresSessionStore', async (clock) => {
  const { store, schema, cleanup } = await pgt.freshStore('contract', { clock });
  const pool = pgt.pool;
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
    damageAudit: async (userId, text) => {
      await pool.query(`UPDATE ${table('agentstate_audit')} SET entry = $2 WHERE owner = $1`, [
        ownerPart(userId),
        text,
      ]);
    },
    cleanup,
  };
});

describe('PostgresSessionStore schema', () => {
  it('creates its tables once, records the version, and refuses a newer schema', async () => {
    const first = await PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    const again = await PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    const { rows } = await pgt.pool.query(
      'SELECT version FROM versions.agentstate_schema_versions ORDER BY version',
    );
    // One row per migration step applied, up to the current version.
    expect(rows).toEqual(
      Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    await Promise.all([first.close(), again.close()]);
    await pgt.pool.query('INSERT INTO versions.agentstate_schema_versions (version) VALUES (99)');
    const newer = PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    await expect(newer).rejects.toBeInstanceOf(UnsupportedSchemaVersionError);
    await expect(newer).rejects.toMatchObject({ found: 99, supported: POSTGRES_SCHEMA_VERSION });
  });

  it('owns a pool made from a connection string and ends it on close', async () => {
    const store = await PostgresSessionStore.open({
      connectionString: pgt.cluster.url,
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
    const borrowed = await PostgresSessionStore.open({ pool: pgt.pool, schema: 'owned' });
    await borrowed.close();
    await expect(borrowed.load({ sessionId: 's', userId: 'u' })).resolves.toMatchObject({
      version: 1,
    });
  });

  it('checks its options', () => {
    expect(() => new PostgresSessionStore({})).toThrow(
      /exactly one of the options "pool" and "connectionString"/,
    );
    expect(
      () => new PostgresSessionStore({ pool: pgt.pool, conectionString: 'x' } as never),
    ).toThrow(/did you mean "connectionString"/);
  });
});
