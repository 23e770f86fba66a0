import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { schemaRows, usersMemories, vectorHex } from '../../helpers/postgres-memory-checks.js';
import { useOwnPostgres } from '../../helpers/postgres-tests.js';

/**
 * Erasing memory on PostgreSQL, on a server of this file's own: `VACUUM` removes only the dead
 * tuples no open transaction of the database can still see, and the shared test server has
 * other files' transactions starting and ending all the time.
 */
const pgt = useOwnPostgres();

describe('PostgresSessionStore memory erase', () => {
  /** Alice's and Bob's memories (one long text among them: TOASTed) and working memories. */
  async function twoUsers(store: PostgresSessionStore) {
    const memories = usersMemories(['alice', 'bob'], 40, 64);
    memories[0] = { ...memories[0]!, text: `secret long of alice ${'x'.repeat(9_000)}` };
    await store.putMemories(memories);
    for (const user of ['alice', 'bob']) {
      await store.writeWorkingMemory(
        { userId: user },
        { content: `working secret of ${user}`, expectedVersion: 0, opId: 'o', at: 1 },
      );
    }
    const needles = (user: string) => [
      `working secret of ${user}`,
      ...memories.filter((m) => m.userId === user).map((m) => m.text.slice(0, 40)),
      ...memories.filter((m) => m.userId === user).map((m) => vectorHex(m.vector)),
    ];
    return { memories, needles };
  }

  const found = (rows: readonly string[], list: readonly string[]) =>
    list.filter((needle) => rows.some((row) => row.includes(needle)));

  it('erases a user to the byte in every row of every table, then VACUUMs the memory tables', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('erase');
    try {
      const { memories, needles } = await twoUsers(store);
      await store.searchMemories({
        userId: 'alice',
        model: 'm',
        vector: memories[0]!.vector,
        topK: 3,
      });
      // The scan finds what is there: every needle of alice's before the forget.
      expect(found(await schemaRows(pgt.pool, schema), needles('alice'))).toHaveLength(81);
      expect(await store.forgetMemories({ userId: 'alice' })).toEqual({
        memories: 40,
        workingMemories: 1,
      });
      const rows = await schemaRows(pgt.pool, schema);
      expect(found(rows, needles('alice'))).toEqual([]);
      expect(found(rows, needles('bob'))).toHaveLength(81);
      expect(found(rows, ['"alice-', 'u:alice!'])).toEqual([]);
      // VACUUM ran (it counts the live tuples it left: reltuples is -1 until a table's first).
      const { rows: counted } = await pgt.pool.query<{ relname: string; reltuples: number }>(
        `SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname IN ('agentstate_memories', 'agentstate_working_memories')
         ORDER BY 1`,
        [schema],
      );
      expect(counted).toEqual([
        { relname: 'agentstate_memories', reltuples: 40 },
        { relname: 'agentstate_working_memories', reltuples: 1 },
      ]);
    } finally {
      await cleanup();
    }
  });

  it('with memoryErase "rewrite", leaves no byte of the erased memories in the tables’ data files', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('rewrite', { memoryErase: 'rewrite' });
    try {
      const { needles } = await twoUsers(store);
      await store.forgetMemories({ userId: 'alice' });
      // The data files of the memory tables (heap, TOAST, indexes) as the server wrote them.
      await pgt.pool.query('CHECKPOINT');
      const { rows: files } = await pgt.pool.query<{ path: string }>(
        `WITH tables AS (
           SELECT c.oid, c.reltoastrelid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relname IN ('agentstate_memories', 'agentstate_working_memories')
         ), relations AS (
           SELECT oid FROM tables UNION SELECT reltoastrelid FROM tables WHERE reltoastrelid <> 0
         )
         SELECT current_setting('data_directory') || '/' || pg_relation_filepath(r) AS path
         FROM (SELECT oid AS r FROM relations
               UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM relations)) AS x`,
        [schema],
      );
      const bytes = files.map((f) => readFileSync(f.path));
      const inFiles = (list: readonly string[]) =>
        list.filter((needle) => {
          const raw = /^[0-9a-f]+$/.test(needle) ? Buffer.from(needle, 'hex') : Buffer.from(needle);
          return bytes.some((b) => b.includes(raw));
        });
      // Two heaps, two TOAST tables, their indexes: bob's memories are found in them, alice's not.
      expect(files.length).toBeGreaterThanOrEqual(8);
      expect(inFiles(needles('bob'))).toHaveLength(81);
      expect(inFiles(needles('alice'))).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
