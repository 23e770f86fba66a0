import { describe, expect, it } from 'vitest';
import {
  InvalidSessionRecordError,
  UnsupportedSchemaVersionError,
} from '../../../src/errors/session-errors.js';
import {
  POSTGRES_SCHEMA_VERSION,
  migrateSchema,
} from '../../../src/persistence/postgres/postgres-schema.js';
import { SessionRecordCodec } from '../../../src/persistence/session-record-codec.js';
import { encodeStored, toSessionInfo } from '../../../src/persistence/session-schemas.js';
import { newSession, newWorkflow } from '../../../src/store-contract/contract-fixtures.js';
import {
  ORDER_COLUMNS,
  listPositions,
  positionsOf,
} from '../../../src/persistence/postgres/postgres-list-orders.js';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { PostgresStatements } from '../../../src/persistence/postgres/postgres-statements.js';
import { listIndexKey, ownerPart, recordKey } from '../../../src/persistence/session-keys.js';
import { storeContract } from '../../../src/store.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

const pgt = usePostgres();

/** Each test gets its own schema: an empty database, in the same cluster. */
storeContract(
  { describe, it },
  {
    name: 'PostgresSessionStore',
    open: async (clock) => {
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
        fileDeadline: async (key, deadline) => {
          await pool.query(
            `UPDATE ${table('agentstate_sessions')} SET approval_deadline = $3 WHERE owner = $1 AND session_id = $2`,
            [ownerPart(key.userId), key.sessionId, deadline],
          );
        },
        damageSchedule: async (userId, scheduleId, text) => {
          await pool.query(
            `UPDATE ${table('agentstate_schedules')} SET record = $3 WHERE owner = $1 AND id = $2`,
            [ownerPart(userId), scheduleId, text],
          );
        },
        damageMemory: async (userId, memoryId, text) => {
          await pool.query(
            `UPDATE ${table('agentstate_memories')} SET memory = $3 WHERE owner = $1 AND id = $2`,
            [ownerPart(userId), memoryId, text],
          );
        },
        cleanup,
      };
    },
    // Every optional part: a store shared by processes.
    supports: {
      leases: true,
      leaseReads: true,
      deadlineIndex: true,
      decisionInbox: true,
      messageInbox: true,
      queuedSessions: true,
      sessionWatches: true,
      memory: true,
      schedules: true,
    },
  },
);

describe('PostgresSessionStore schema', () => {
  it('creates its tables once, records the version, and refuses a newer schema', async () => {
    const first = await PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    const again = await PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    const { rows } = await pgt.pool.query(
      'SELECT version FROM versions.agentstate_schema_versions ORDER BY version',
    );
    const all = Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 }));
    expect(rows).toEqual(all);
    await Promise.all([first.close(), again.close()]);
    await pgt.pool.query('INSERT INTO versions.agentstate_schema_versions (version) VALUES (99)');
    const newer = PostgresSessionStore.open({ pool: pgt.pool, schema: 'versions' });
    await expect(newer).rejects.toBeInstanceOf(UnsupportedSchemaVersionError);
    await expect(newer).rejects.toMatchObject({ found: 99, supported: POSTGRES_SCHEMA_VERSION });
  });

  it('migrates a version 1 database: the deadline column is added and filled from the records', async () => {
    const schema = pgt.schema('old');
    await migrateSchema(pgt.pool, schema, 1);
    const codec = new SessionRecordCodec();
    const t = (name: string) => `"${schema}".${name}`;
    const rows = [
      { ...newSession('waits', 'alice'), version: 3, approvalDeadline: 7_000 },
      { ...newSession('idle', 'alice'), version: 1 },
      { ...newSession('waits'), version: 2, approvalDeadline: 5_000 },
    ];
    for (const record of rows) {
      const key = { sessionId: record.sessionId, userId: record.userId };
      await pgt.pool.query(
        `INSERT INTO ${t('agentstate_sessions')} VALUES ($1, $2, $3, 'active', 0, $4, $5)`,
        [
          ownerPart(record.userId),
          record.sessionId,
          record.version,
          codec.encode(recordKey(key), record),
          encodeStored(listIndexKey(key), toSessionInfo(record)),
        ],
      );
    }
    await pgt.pool.query(
      `INSERT INTO ${t('agentstate_totals')} VALUES ('u:alice', 0, 0, 0, 0), ('a', 0, 0, 0, 0)`,
    );
    // A damaged record is left unindexed by the backfill (reading it reports the damage).
    await pgt.pool.query(
      `INSERT INTO ${t('agentstate_sessions')} VALUES ('u:alice', 'torn', 1, 'active', 0, '#00000000{"record":{"approvalDeadline":1', '')`,
    );
    const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    const versions = await pgt.pool.query(
      `SELECT version FROM ${t('agentstate_schema_versions')} ORDER BY version`,
    );
    expect(versions.rows).toEqual(
      Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    const page = await store.dueApprovals({ until: 10_000, limit: 10 });
    expect(page.due.map((e) => [e.key, e.deadline])).toEqual([
      [{ sessionId: 'waits', userId: undefined }, 5_000],
      [{ sessionId: 'waits', userId: 'alice' }, 7_000],
    ]);
    // The migrated rows take steps as any other.
    const loaded = await store.load({ sessionId: 'waits', userId: 'alice' });
    const saved = await store.save({
      record: { ...loaded, approvalDeadline: undefined },
      items: [],
      journal: [],
    });
    expect(saved.version).toBe(4);
    expect((await store.dueApprovals({ until: 10_000, limit: 10 })).due).toHaveLength(1);
    await store.close();
  });

  it('migrates a version 6 database: the list-order columns are filled from the listing entries', async () => {
    const schema = pgt.schema('before-orders');
    await migrateSchema(pgt.pool, schema, 6);
    const codec = new SessionRecordCodec();
    const t = (name: string) => `"${schema}".${name}`;
    const rows = [
      { ...newSession('old', 'alice'), version: 1, updatedAt: 3_000 },
      { ...newSession('waits', 'alice'), version: 1, updatedAt: 1_000, awaitingApproval: true },
      { ...newSession('new', 'alice'), version: 1, updatedAt: 9_000 },
    ];
    for (const record of rows) {
      const key = { sessionId: record.sessionId, userId: record.userId };
      await pgt.pool.query(
        `INSERT INTO ${t('agentstate_sessions')} (owner, session_id, version, status, history_length, record, listing)
         VALUES ($1, $2, $3, 'active', 0, $4, $5)`,
        [
          ownerPart(record.userId),
          record.sessionId,
          record.version,
          codec.encode(recordKey(key), record),
          encodeStored(listIndexKey(key), toSessionInfo(record)),
        ],
      );
    }
    await pgt.pool.query(`INSERT INTO ${t('agentstate_totals')} VALUES ('u:alice', 0, 0, 0, 0)`);
    const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    const ids = async (order: 'updated' | 'id') =>
      (await store.list({ userId: 'alice', order })).sessions.map((s) => s.sessionId);
    expect(await ids('updated')).toEqual(['waits', 'new', 'old']);
    expect(await ids('id')).toEqual(['waits', 'new', 'old']);
    const indexes = await pgt.pool.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname ~ '^agentstate_(sessions|workflows)_order_' ORDER BY 1`,
      [schema],
    );
    expect(indexes.rows.map((r: { indexname: string }) => r.indexname)).toEqual([
      'agentstate_sessions_order_created',
      'agentstate_sessions_order_id',
      'agentstate_sessions_order_updated',
      'agentstate_sessions_order_usage',
      'agentstate_workflows_order_created',
      'agentstate_workflows_order_id',
      'agentstate_workflows_order_updated',
      'agentstate_workflows_order_usage',
    ]);
    await store.close();
  });

  it('migrates a version 7 database: workflow instances are listed apart, each kind from its own index', async () => {
    const schema = pgt.schema('before-kinds');
    await migrateSchema(pgt.pool, schema, 7);
    const codec = new SessionRecordCodec();
    const t = (name: string) => `"${schema}".${name}`;
    const rows = [
      { ...newSession('chat', 'alice'), version: 1, updatedAt: 3_000 },
      { ...newWorkflow('o1', 'alice'), version: 2, updatedAt: 1_000, awaitingApproval: true },
      { ...newWorkflow('o2', 'alice'), version: 1, updatedAt: 9_000 },
    ];
    for (const record of rows) {
      const key = { sessionId: record.sessionId, userId: record.userId };
      await pgt.pool.query(
        `INSERT INTO ${t('agentstate_sessions')} (owner, session_id, version, status, history_length, record, listing, ${ORDER_COLUMNS})
         VALUES ($1, $2, $3, 'active', 0, $4, $5, ${positionsOf(6)})`,
        [
          ownerPart(record.userId),
          record.sessionId,
          record.version,
          codec.encode(recordKey(key), record),
          encodeStored(listIndexKey(key), toSessionInfo(record)),
          listPositions(record),
        ],
      );
    }
    await pgt.pool.query(`INSERT INTO ${t('agentstate_totals')} VALUES ('u:alice', 0, 0, 0, 0)`);
    const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    const ids = async (kind?: 'workflow', order?: 'updated') =>
      (await store.list({ userId: 'alice', kind, order })).sessions.map((s) => s.sessionId);
    expect(await ids()).toEqual(['chat']);
    expect(await ids(undefined, 'updated')).toEqual(['chat']);
    expect(await ids('workflow')).toEqual(['workflow:o1', 'workflow:o2']);
    expect(await ids('workflow', 'updated')).toEqual(['workflow:o1', 'workflow:o2']);
    const { rows: columns } = await pgt.pool.query(
      `SELECT session_id, workflow FROM ${t('agentstate_sessions')} ORDER BY session_id`,
    );
    expect(columns).toEqual([
      { session_id: 'chat', workflow: null },
      { session_id: 'workflow:o1', workflow: 'orders' },
      { session_id: 'workflow:o2', workflow: 'orders' },
    ]);
    // Each kind's page is a read of its own partial index.
    const plan = async (kind: 'session' | 'workflow', order?: 'updated') => {
      const statements = new PostgresStatements(t, 'unused');
      const sql = order ? statements.listInOrder(order, kind) : statements.list(kind);
      const client = await pgt.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off');
        const { rows: lines } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [
          'u:alice',
          null,
          null,
          10,
        ]);
        await client.query('ROLLBACK');
        return lines.map((l) => l['QUERY PLAN']).join('\n');
      } finally {
        client.release();
      }
    };
    expect(await plan('workflow')).toContain('agentstate_workflows_by_id');
    expect(await plan('session')).toContain('agentstate_sessions_by_id');
    expect(await plan('workflow', 'updated')).toContain('agentstate_workflows_order_updated');
    expect(await plan('session', 'updated')).toContain('agentstate_sessions_order_updated');
    // A migrated instance takes steps as any other, and stays listed as an instance.
    const loaded = await store.load({ sessionId: 'workflow:o2', userId: 'alice' });
    await store.save({ record: { ...loaded, status: 'completed' }, items: [], journal: [] });
    expect(await ids('workflow')).toEqual(['workflow:o1', 'workflow:o2']);
    await store.close();
  });

  it('refuses a listing row filed under the other kind, naming it', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('kinds');
    try {
      await store.create(newWorkflow('o1', 'alice'));
      await pgt.pool.query(`UPDATE "${schema}".agentstate_sessions SET workflow = NULL`);
      await expect(store.list({ userId: 'alice' })).rejects.toMatchObject({
        code: 'INVALID_SESSION_RECORD',
        key: listIndexKey({ sessionId: 'workflow:o1', userId: 'alice' }),
      });
      await expect(store.list({ userId: 'alice', order: 'id' })).rejects.toBeInstanceOf(
        InvalidSessionRecordError,
      );
      expect((await store.list({ userId: 'alice', kind: 'workflow' })).sessions).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('keeps a decision inbox: submissions in order across owners, checked, dropped, purged', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('inbox');
    try {
      const heard: number[] = [];
      const watch = await store.watchDecisions(
        () => heard.push(1),
        () => undefined,
      );
      const alice = { sessionId: 's', userId: 'alice' };
      const decisions = [{ callId: 'c1', approve: true, runId: 'r1' }];
      await store.submitDecisions({ key: alice, runId: 'r1', decisions, at: 5 });
      await store.submitDecisions({ key: { sessionId: 's' }, runId: 'r2', decisions: [], at: 6 });
      const page = await store.submittedDecisions({ limit: 10 });
      expect(page.damaged).toEqual([]);
      expect(page.submitted.map((e) => [e.key, e.runId, e.decisions, e.at])).toEqual([
        [alice, 'r1', decisions, 5],
        [{ sessionId: 's', userId: undefined }, 'r2', [], 6],
      ]);
      expect((await store.submittedDecisions({ limit: 1 })).submitted).toHaveLength(1);
      // A row moved to another session fails its seal: reported, never applied.
      await pgt.pool.query(
        `UPDATE "${schema}".agentstate_decisions SET session_id = 't' WHERE owner = 'a'`,
      );
      const moved = await store.submittedDecisions({ limit: 10 });
      expect(moved.submitted.map((e) => e.runId)).toEqual(['r1']);
      expect(moved.damaged[0]).toBeInstanceOf(InvalidSessionRecordError);
      await store.dropDecisions(moved.submitted[0]!);
      await store.create(newSession('t'));
      await store.purge({ sessionId: 't' });
      expect(await store.submittedDecisions({ limit: 10 })).toEqual({ submitted: [], damaged: [] });
      // Each committed submission was heard through LISTEN/NOTIFY.
      for (let i = 0; heard.length < 2 && i < 1000; i++) await new Promise((r) => setImmediate(r));
      expect(heard).toHaveLength(2);
      await watch.close();
      await expect(store.submittedDecisions({ limit: 0 })).rejects.toBeInstanceOf(TypeError);
    } finally {
      await cleanup();
    }
  });

  it('owns a pool made from a connection string and ends it on close', async () => {
    const store = await PostgresSessionStore.open({
      connectionString: pgt.url,
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
