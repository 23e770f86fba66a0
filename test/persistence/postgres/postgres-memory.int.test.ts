import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import type { MemoryInput } from '../../../src/persistence/memory-store.js';
import { readEveryPath, usersMemories, vectorHex } from '../../helpers/postgres-memory-checks.js';
import { countingPool } from '../../helpers/counting-pool.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/**
 * The memory of the PostgreSQL store on a server without pgvector (the tests' embedded
 * PostgreSQL has no `vector` extension): vectors kept as float32 bytes, searched exactly in the
 * process over a cache each search brings up to date with one query.
 */
const pgt = usePostgres();

describe('PostgresSessionStore memory without pgvector', () => {
  it('keeps vectors as float32 bytes (the server has no pgvector) and searches them exactly', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('exact');
    try {
      const { rows: available } = await pgt.pool.query(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
      );
      expect(available).toEqual([]);
      const [memory] = usersMemories(['alice'], 1, 8);
      await store.putMemories([memory!]);
      const { rows } = await pgt.pool.query<{ vector: Buffer; columns: string[] }>(
        `SELECT vector, (SELECT array_agg(column_name::text) FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'agentstate_memories') AS columns
         FROM "${schema}".agentstate_memories`,
        [schema],
      );
      expect(rows[0]!.vector.toString('hex')).toBe(vectorHex(memory!.vector));
      expect(rows[0]!.columns).not.toContain('embedding');
      const found = await store.searchMemories({
        userId: 'alice',
        model: 'm',
        vector: memory!.vector,
        topK: 1,
      });
      expect(found[0]!.memory.id).toBe('alice-0');
      expect(found[0]!.score).toBeCloseTo(1, 5);
    } finally {
      await cleanup();
    }
  });

  it('isolates 1,000 memories for each of 3 users on every read and search path', async () => {
    const { store, cleanup } = await pgt.freshStore('isolation');
    try {
      const users = ['alice', 'bob', 'carol'];
      const memories = usersMemories(users, 1_000, 16);
      for (let i = 0; i < memories.length; i += 500) {
        await store.putMemories(memories.slice(i, i + 500));
      }
      const reads = await readEveryPath(store, users, memories, [undefined, 'r0', 'r1', 'r2']);
      for (const user of users) {
        const { foreign, counts, resources } = reads.get(user)!;
        expect(foreign).toEqual([]);
        expect(counts).toMatchObject({
          'search * 0': 1_000,
          'list *': 1_000,
          'list r0': 167,
          get: 1_000,
          'delete others': 0,
        });
        expect(resources).toEqual(['', 'r0', 'r1', 'r2']);
      }
    } finally {
      await cleanup();
    }
  });

  it('brings its search cache up to date with one query: new rows read past its seq, rebuilt after a delete', async () => {
    const schema = pgt.schema('cache');
    const counted = countingPool(pgt.pool);
    const reader = await PostgresSessionStore.open({ pool: counted.pool, schema });
    const writer = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    try {
      const [a, b, c] = usersMemories(['alice'], 3, 8);
      await writer.putMemories([a!, b!]);
      const search = async (memory: MemoryInput) => {
        counted.statements.length = 0;
        const found = await reader.searchMemories({
          userId: 'alice',
          model: 'm',
          vector: memory.vector,
          topK: 10,
          minScore: 0.99,
        });
        return {
          ids: found.map((f) => f.memory.id),
          statements: counted.statements.map((s) => s.rows),
        };
      };
      // Built at the first search (the owner's row with both memories), then one row: no change.
      expect(await search(a!)).toEqual({ ids: ['alice-0'], statements: [2] });
      expect(await search(b!)).toEqual({ ids: ['alice-1'], statements: [1] });
      // Another process writes: the next search reads that row only.
      await writer.putMemories([c!]);
      expect(await search(c!)).toEqual({ ids: ['alice-2'], statements: [1] });
      expect(await search(a!)).toEqual({ ids: ['alice-0'], statements: [1] });
      // Another process deletes: the owner's epoch moved, the scope is read whole again.
      expect(await writer.deleteMemories({ userId: 'alice' }, ['alice-0'])).toBe(1);
      expect(await search(a!)).toEqual({ ids: [], statements: [2] });
      expect(await search(b!)).toEqual({ ids: ['alice-1'], statements: [1] });
      await writer.forgetMemories({ userId: 'alice' });
      expect(await search(b!)).toEqual({ ids: [], statements: [1] });
    } finally {
      await reader.close();
      await writer.close();
      await pgt.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });

  it('refuses a vector of another dimension than the user’s stored ones, writing nothing', async () => {
    const { store, cleanup } = await pgt.freshStore('dims');
    try {
      await store.putMemories(usersMemories(['alice'], 1, 8));
      const [other] = usersMemories(['alice'], 1, 4, 9);
      const fine = usersMemories(['bob'], 1, 4, 9);
      await expect(
        store.putMemories([...fine, { ...other!, id: 'alice-new' }]),
      ).rejects.toMatchObject({ code: 'INVALID_MEMORY', memoryId: 'alice-new' });
      expect((await store.listMemories({ userId: 'bob' })).memories).toEqual([]);
      // Another user, or another model, keeps its own dimension.
      expect(await store.putMemories(fine)).toEqual({ written: 1 });
      expect(await store.putMemories([{ ...other!, id: 'alice-m2', model: 'm2' }])).toEqual({
        written: 1,
      });
    } finally {
      await cleanup();
    }
  });

  it('reports a damaged or moved memory row as a typed error naming its key', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('damage');
    try {
      await store.putMemories(usersMemories(['alice', 'bob'], 1, 8));
      await pgt.pool.query(
        `UPDATE "${schema}".agentstate_memories SET owner = 'u:alice', id = 'alice-moved' WHERE owner = 'u:bob'`,
      );
      await expect(store.getMemories({ userId: 'alice' }, ['alice-moved'])).rejects.toMatchObject({
        code: 'INVALID_SESSION_RECORD',
        key: 'mem!u:alice!alice-moved',
      });
    } finally {
      await cleanup();
    }
  });

  it('lets one of two writers of a working memory at the same version win; the other conflicts', async () => {
    const schema = pgt.schema('working');
    const one = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    const two = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    try {
      const scope = { userId: 'alice', resource: 'p' };
      const results = await Promise.allSettled([
        one.writeWorkingMemory(scope, { content: 'one', expectedVersion: 0, opId: 'a', at: 1 }),
        two.writeWorkingMemory(scope, { content: 'two', expectedVersion: 0, opId: 'b', at: 2 }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost[0]).toMatchObject({ reason: { code: 'MEMORY_CONFLICT', actualVersion: 1 } });
      const stored = await one.readWorkingMemory(scope);
      expect(stored?.version).toBe(1);
      // The loser's retry of the winner's op answers the stored document, applied once.
      const winner = won[0]!.value;
      const opId = winner.content === 'one' ? 'a' : 'b';
      expect(
        await two.writeWorkingMemory(scope, {
          content: 'again',
          expectedVersion: 0,
          opId,
          at: 3,
        }),
      ).toEqual({ ...stored, applied: false });
    } finally {
      await one.close();
      await two.close();
      await pgt.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });
});
