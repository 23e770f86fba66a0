import type pg from 'pg';

/**
 * The tables of memory across sessions (schema version 9), keyed by `owner` like every table of
 * the store:
 *
 * - `agentstate_memories`: one row per memory, `(owner, id)`; `resource` (`''`: the user's own
 *   scope), `kind`, `session_id`, `model` and `dims` for the queries' filters; `seq`, the
 *   owner's write order (lists page by it, the exact-search cache reads past it); `memory`, the
 *   sealed values; `vector`, the float32 bytes (without pgvector; with it, the `embedding`
 *   column `enablePgvector` (postgres-pgvector.ts) adds holds the vector instead).
 * - `agentstate_working_memories`: one sealed document per `(owner, resource)`, its `version`
 *   a column for the compare-and-set.
 * - `agentstate_memory_owners`: per owner, `seq` (the last write number given: a write takes
 *   its numbers under this row's lock, so an owner's writes commit in `seq` order) and `epoch`
 *   (one more at each delete or forget: an exact-search cache built before is rebuilt).
 */
export function addMemoryTables(
  client: pg.ClientBase,
  t: (name: string) => string,
): Promise<unknown> {
  const memories = t('agentstate_memories');
  return client.query(`
    CREATE TABLE ${memories} (
      owner text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      resource text COLLATE "C" NOT NULL,
      kind text NOT NULL,
      session_id text COLLATE "C",
      model text COLLATE "C" NOT NULL,
      dims integer NOT NULL,
      seq bigint NOT NULL,
      memory text NOT NULL,
      vector bytea,
      PRIMARY KEY (owner, id)
    );
    CREATE INDEX agentstate_memories_by_seq ON ${memories} (owner, seq);
    CREATE INDEX agentstate_memories_by_resource ON ${memories} (owner, resource, seq);
    CREATE INDEX agentstate_memories_by_model ON ${memories} (owner, model, seq);
    CREATE TABLE ${t('agentstate_working_memories')} (
      owner text COLLATE "C" NOT NULL,
      resource text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      doc text NOT NULL,
      PRIMARY KEY (owner, resource)
    );
    CREATE TABLE ${t('agentstate_memory_owners')} (
      owner text COLLATE "C" PRIMARY KEY,
      seq bigint NOT NULL,
      epoch bigint NOT NULL
    );
  `);
}
