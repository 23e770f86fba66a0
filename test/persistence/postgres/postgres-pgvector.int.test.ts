import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import {
  encodeMemory,
  vectorBytes,
} from '../../../src/persistence/postgres/postgres-memory-rows.js';
import { migrateSchema } from '../../../src/persistence/postgres/postgres-schema.js';
import { checkedMemories } from '../../../src/persistence/memory-checks.js';
import { ownerPart } from '../../../src/persistence/session-keys.js';
import { scan } from '../../../src/persistence/vectors/exact-search.js';
import { storeContract } from '../../../src/store.js';
import type { SessionStore } from '../../../src/persistence/session-store.js';
import { usePgliteServer } from '../../helpers/pglite-server.js';
import {
  randomVector,
  readEveryPath,
  schemaRows,
  seededNumbers,
  usersMemories,
} from '../../helpers/postgres-memory-checks.js';

/**
 * The PostgreSQL store on a server with pgvector: PGlite with its `vector` extension (0.8)
 * behind its socket server, reached by `pg` like any server. The whole store runs on it, but
 * for what PGlite's one shared backend cannot do: a NOTIFY reaches whichever connection's
 * statement runs, not the LISTEN connection, so the decision inbox's watch and session watches
 * are left out of the contract here (the embedded PostgreSQL server tests them).
 */
const server = usePgliteServer();

/** The capabilities PGlite cannot carry (LISTEN/NOTIFY across connections). */
const NOT_HERE = new Set<string | symbol>([
  'submitDecisions',
  'submittedDecisions',
  'dropDecisions',
  'watchDecisions',
  'watchSession',
]);

/** The store as the contract sees it here: without the capabilities PGlite cannot carry. */
function withoutWatches(store: PostgresSessionStore): SessionStore {
  const supports = { ...store.supports, decisionInbox: false, sessionWatches: false };
  return new Proxy(store, {
    get: (target, name, receiver) =>
      name === 'supports'
        ? supports
        : NOT_HERE.has(name)
          ? undefined
          : (Reflect.get(target, name, receiver) as unknown),
    has: (target, name) => !NOT_HERE.has(name) && Reflect.has(target, name),
  });
}

storeContract(
  { describe, it },
  {
    name: 'PostgresSessionStore on PGlite (pgvector)',
    open: async (clock) => {
      const schema = server.schema('contract');
      const store = await PostgresSessionStore.open({ pool: server.pool, schema, clock });
      const pool = server.pool;
      const table = (name: string) => `"${schema}".${name}`;
      return {
        store: withoutWatches(store),
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
        damageMemory: async (userId, memoryId, text) => {
          await pool.query(
            `UPDATE ${table('agentstate_memories')} SET memory = $3 WHERE owner = $1 AND id = $2`,
            [ownerPart(userId), memoryId, text],
          );
        },
        cleanup: async () => {
          await store.close();
          await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        },
      };
    },
    supports: {
      leases: true,
      leaseReads: true,
      deadlineIndex: true,
      messageInbox: true,
      queuedSessions: true,
      memory: true,
      schedules: true,
    },
  },
);

/** A store in a fresh schema of the PGlite server, closed and dropped after `work`. */
async function withStore<T>(
  prefix: string,
  work: (store: PostgresSessionStore, schema: string) => Promise<T>,
): Promise<T> {
  const schema = server.schema(prefix);
  const store = await PostgresSessionStore.open({ pool: server.pool, schema });
  try {
    return await work(store, schema);
  } finally {
    await store.close();
    await server.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  }
}

describe('PostgresSessionStore memory with pgvector', () => {
  it('keeps vectors in a pgvector column with a partial HNSW index per dimension, made once', () =>
    withStore('indexes', async (store, schema) => {
      await store.putMemories(usersMemories(['alice'], 3, 8));
      await store.putMemories(usersMemories(['bob'], 2, 16, 3));
      await store.putMemories(usersMemories(['carol'], 2, 8, 5));
      const { rows } = await server.pool.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%hnsw%' ORDER BY 1`,
        [schema],
      );
      expect(rows.map((r) => r.indexdef.replace(/"/g, ''))).toEqual([
        expect.stringMatching(
          /USING hnsw \(\(\(embedding\)::(public\.)?vector\(16\)\) (public\.)?vector_cosine_ops\) WHERE \(dims = 16\)$/,
        ),
        expect.stringMatching(
          /USING hnsw \(\(\(embedding\)::(public\.)?vector\(8\)\) (public\.)?vector_cosine_ops\) WHERE \(dims = 8\)$/,
        ),
      ]);
      const { rows: stored } = await server.pool.query<{ bytes: number; embedded: number }>(
        `SELECT count(vector)::int AS bytes, count(embedding)::int AS embedded
         FROM "${schema}".agentstate_memories`,
      );
      expect(stored).toEqual([{ bytes: 0, embedded: 7 }]);
    }));

  it('searches a dimension HNSW cannot index (over 2,000) without an index, exactly', () =>
    withStore('wide', async (store, schema) => {
      const memories = usersMemories(['alice'], 3, 2_001);
      await store.putMemories(memories);
      const { rows } = await server.pool.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%hnsw%'`,
        [schema],
      );
      expect(rows).toEqual([]);
      const found = await store.searchMemories({
        userId: 'alice',
        model: 'm',
        vector: memories[1]!.vector,
        topK: 1,
      });
      expect(found.map((f) => f.memory.id)).toEqual(['alice-1']);
    }));

  it('finds the exact top 10 at least 95% of the time through the HNSW index, one user among three', () =>
    withStore('recall', async (store, schema) => {
      const dims = 64;
      const users = ['alice', 'bob', 'carol'];
      const memories = usersMemories(users, 1_000, dims, 11);
      for (let i = 0; i < memories.length; i += 500) {
        await store.putMemories(memories.slice(i, i + 500));
      }
      // With 1,000 memories a user, the planner reads the user's rows and sorts them (exact):
      // cheaper than the index. It takes the index when a user has many more; here a sort is
      // priced out for the searches (a setting of PGlite's one session, shared by every
      // connection), so they go through HNSW, filtered by owner.
      const next = seededNumbers(99);
      let hits = 0;
      let asked = 0;
      await server.pool.query('SET enable_sort = off');
      try {
        for (const userId of users) {
          const own = memories.filter((m) => m.userId === userId);
          const rows = new Float32Array(own.length * dims);
          own.forEach((m, i) => rows.set(m.vector, i * dims));
          for (let q = 0; q < 20; q++) {
            const query = randomVector(next, dims);
            const exact = new Set(
              scan(rows, own.length, dims, query, 10).map((r) => own[r.row]!.id),
            );
            const found = await store.searchMemories({
              userId,
              model: 'm',
              vector: query,
              topK: 10,
            });
            expect(found).toHaveLength(10);
            expect(found.every((f) => f.memory.userId === userId)).toBe(true);
            hits += found.filter((f) => exact.has(f.memory.id)).length;
            asked += 10;
          }
        }
      } finally {
        await server.pool.query('RESET enable_sort');
      }
      expect(hits / asked).toBeGreaterThanOrEqual(0.95);
      // The searches went through the index of their dimension.
      await server.pool.query('SELECT pg_stat_force_next_flush()');
      await server.pool.query('SELECT 1');
      const { rows: scans } = await server.pool.query<{ idx_scan: string }>(
        `SELECT idx_scan FROM pg_stat_user_indexes WHERE schemaname = $1 AND indexrelname = 'agentstate_memories_hnsw_64'`,
        [schema],
      );
      expect(Number(scans[0]?.idx_scan)).toBeGreaterThanOrEqual(60);
    }));

  it('isolates 1,000 memories for each of 3 users on every read and search path', () =>
    withStore('isolation', async (store) => {
      const users = ['alice', 'bob', 'carol'];
      const memories = usersMemories(users, 1_000, 16);
      for (let i = 0; i < memories.length; i += 500) {
        await store.putMemories(memories.slice(i, i + 500));
      }
      const reads = await readEveryPath(store, users, memories, [undefined, 'r0', 'r1', 'r2']);
      for (const user of users) {
        const { foreign, counts, resources } = reads.get(user)!;
        expect(foreign).toEqual([]);
        expect(counts).toMatchObject({ 'list *': 1_000, 'list r0': 167, get: 1_000 });
        expect(counts['delete others']).toBe(0);
        expect(resources).toEqual(['', 'r0', 'r1', 'r2']);
      }
    }));

  it('erases a user to the byte in every row of every table: texts and embeddings', () =>
    withStore('erase', async (store, schema) => {
      const memories = usersMemories(['alice', 'bob'], 30, 32);
      await store.putMemories(memories);
      for (const user of ['alice', 'bob']) {
        await store.writeWorkingMemory(
          { userId: user, resource: 'r0' },
          { content: { note: `working secret of ${user}` }, expectedVersion: 0, opId: 'o', at: 1 },
        );
      }
      // Each embedding as the server prints it (what a scan of the rows reads).
      const { rows: embedded } = await server.pool.query<{ owner: string; text: string }>(
        `SELECT owner, embedding::text AS text FROM "${schema}".agentstate_memories`,
      );
      const needles = (user: string) => [
        `working secret of ${user}`,
        ...memories.filter((m) => m.userId === user).map((m) => m.text),
        ...embedded.filter((e) => e.owner === ownerPart(user)).map((e) => e.text),
      ];
      const found = (rows: readonly string[], list: readonly string[]) =>
        list.filter((needle) => rows.some((row) => row.includes(needle)));
      expect(found(await schemaRows(server.pool, schema), needles('alice'))).toHaveLength(61);
      expect(await store.forgetMemories({ userId: 'alice' })).toEqual({
        memories: 30,
        workingMemories: 1,
      });
      const rows = await schemaRows(server.pool, schema);
      expect(found(rows, needles('alice'))).toEqual([]);
      expect(found(rows, needles('bob'))).toHaveLength(61);
    }));

  it('gives the memories a server kept as bytes before it had pgvector their embedding', async () => {
    const schema = server.schema('backfill');
    await migrateSchema(server.pool, schema);
    const [memory] = checkedMemories(usersMemories(['alice'], 1, 8));
    const owner = ownerPart('alice');
    await server.pool.query(`INSERT INTO "${schema}".agentstate_memory_owners VALUES ($1, 1, 0)`, [
      owner,
    ]);
    await server.pool.query(
      `INSERT INTO "${schema}".agentstate_memories
         (owner, id, resource, kind, session_id, model, dims, seq, memory, vector)
       VALUES ($1, $2, $7, $3, $4, 'm', 8, 1, $5, $6)`,
      [
        owner,
        memory!.id,
        memory!.kind,
        memory!.sessionId ?? null,
        encodeMemory(owner, memory!, 1),
        vectorBytes(memory!.vector),
        memory!.resource ?? '',
      ],
    );
    const store = await PostgresSessionStore.open({ pool: server.pool, schema });
    try {
      const found = await store.searchMemories({
        userId: 'alice',
        model: 'm',
        vector: memory!.vector,
        topK: 1,
      });
      expect(found.map((f) => [f.memory.id, Math.round(f.score * 1e5) / 1e5])).toEqual([
        ['alice-0', 1],
      ]);
      const { rows } = await server.pool.query(
        `SELECT vector, embedding IS NOT NULL AS embedded FROM "${schema}".agentstate_memories`,
      );
      expect(rows).toEqual([{ vector: null, embedded: true }]);
    } finally {
      await store.close();
      await server.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });
});
