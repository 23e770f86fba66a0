import type pg from 'pg';
import {
  checkedIds,
  checkedListLimit,
  checkedMemories,
  checkedScope,
  checkedUser,
  dimensionMismatch,
  type CheckedMemory,
} from '../memory-checks.js';
import type {
  ForgetResult,
  Memory,
  MemoryInput,
  MemoryListQuery,
  MemoryPage,
  MemoryResource,
  MemoryScope,
  MemoryStore,
} from '../memory-store.js';
import * as keys from '../session-keys.js';
import type { PostgresDatabase } from './postgres-database.js';
import { PostgresMemorySearch } from './postgres-memory-search.js';
import {
  decodeMemory,
  encodeMemory,
  resourceColumn,
  vectorBytes,
  vectorText,
  type MemoryRow,
} from './postgres-memory-rows.js';
import { PostgresWorkingMemory } from './postgres-working-memory.js';

/**
 * The memory of a PostgreSQL store (`MemoryStore`), on the tables of `postgres-memory-schema.ts`:
 * memories kept, listed, read, deleted and forgotten here; their search (pgvector, or exact in
 * this process) is `PostgresMemorySearch`'s, working memory `PostgresWorkingMemory`'s.
 */
export class PostgresMemory implements MemoryStore {
  private readonly t: (name: string) => string;
  private readonly search: PostgresMemorySearch;
  readonly searchMemories: MemoryStore['searchMemories'];
  readonly readWorkingMemory: MemoryStore['readWorkingMemory'];
  readonly writeWorkingMemory: MemoryStore['writeWorkingMemory'];

  private readonly erase: 'vacuum' | 'rewrite';

  constructor(
    private readonly db: PostgresDatabase,
    options: { cacheBytes: number; erase: 'vacuum' | 'rewrite' },
  ) {
    this.t = db.table;
    this.erase = options.erase;
    const search = (this.search = new PostgresMemorySearch(db, options.cacheBytes));
    this.searchMemories = search.searchMemories.bind(search);
    const working = new PostgresWorkingMemory(db);
    this.readWorkingMemory = working.readWorkingMemory.bind(working);
    this.writeWorkingMemory = working.writeWorkingMemory.bind(working);
  }

  async putMemories(memories: readonly MemoryInput[]): Promise<{ written: number }> {
    const checked = checkedMemories(memories);
    if (checked.length === 0) return { written: 0 };
    const pgvector = await this.search.pgvector();
    if (pgvector) await this.search.indexDimensions(pgvector, checked);
    const owners = new Map<string, CheckedMemory[]>();
    for (const m of checked) {
      const owner = keys.ownerPart(m.userId);
      const list = owners.get(owner) ?? owners.set(owner, []).get(owner)!;
      list.push(m);
    }
    const ownerList = [...owners.keys()].sort();
    const written = await this.db.transaction('keep memories', async (client) => {
      // Each owner's write numbers, taken under its row's lock (owners in order: no deadlock).
      const { rows: numbered } = await client.query<{ owner: string; seq: string }>(
        `INSERT INTO ${this.t('agentstate_memory_owners')} AS o (owner, seq, epoch)
         SELECT owner, n, 0 FROM unnest($1::text[], $2::bigint[]) AS x(owner, n) ORDER BY owner
         ON CONFLICT (owner) DO UPDATE SET seq = o.seq + excluded.seq
         RETURNING owner, seq`,
        [ownerList, ownerList.map((o) => owners.get(o)!.length)],
      );
      await this.checkDimensions(client, owners);
      const base = new Map(
        numbered.map((r) => [r.owner, Number(r.seq) - owners.get(r.owner)!.length]),
      );
      const rows = ownerList.flatMap((owner) =>
        owners.get(owner)!.map((m, i) => ({ owner, m, seq: base.get(owner)! + i + 1 })),
      );
      const values = [
        rows.map((r) => r.owner),
        rows.map((r) => r.m.id),
        rows.map((r) => resourceColumn(r.m.resource)),
        rows.map((r) => r.m.kind),
        rows.map((r) => r.m.sessionId ?? null),
        rows.map((r) => r.m.model),
        rows.map((r) => r.m.vector.length),
        rows.map((r) => r.seq),
        rows.map((r) => encodeMemory(r.owner, r.m, r.seq)),
        pgvector
          ? rows.map((r) => vectorText(r.m.vector))
          : rows.map((r) => vectorBytes(r.m.vector)),
      ];
      const column = pgvector ? 'embedding' : 'vector';
      const cast = pgvector ? `text[]` : 'bytea[]';
      const value = pgvector ? `x.v::${pgvector.schema}.vector` : 'x.v';
      const { rowCount } = await client.query(
        `INSERT INTO ${this.t('agentstate_memories')}
           (owner, id, resource, kind, session_id, model, dims, seq, memory, ${column})
         SELECT x.owner, x.id, x.resource, x.kind, x.session_id, x.model, x.dims, x.seq, x.memory,
           ${value}
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
           $7::int[], $8::bigint[], $9::text[], $10::${cast})
           AS x(owner, id, resource, kind, session_id, model, dims, seq, memory, v)
         ON CONFLICT (owner, id) DO NOTHING`,
        values,
      );
      this.db.count(values.slice(0, 9));
      return rowCount ?? 0;
    });
    return { written };
  }

  async listMemories(query: MemoryListQuery): Promise<MemoryPage> {
    const limit = checkedListLimit(query);
    const owner = keys.ownerPart(checkedUser(query.userId));
    const { resource } = checkedScope(query);
    if (query.kind !== undefined && query.kind !== 'message' && query.kind !== 'fact') {
      throw new TypeError('listMemories: kind must be "message" or "fact"');
    }
    const cursor = query.cursor;
    if (cursor !== undefined && !/^[0-9]{1,19}$/.test(cursor)) {
      throw new TypeError('listMemories: cursor is not one a page of this store gave');
    }
    const { rows } = await this.db.query<MemoryRow & { seq: string }>(
      'list memories',
      {},
      () =>
        `SELECT id, resource, memory, seq FROM ${this.t('agentstate_memories')}
         WHERE owner = $1 AND ($2::text IS NULL OR resource = $2)
           AND ($3::text IS NULL OR kind = $3) AND ($4::bigint IS NULL OR seq < $4)
         ORDER BY seq DESC LIMIT $5`,
      [owner, resource ?? null, query.kind ?? null, cursor ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      memories: page.map((row) => decodeMemory(owner, row)),
      nextCursor: rows.length > limit ? page.at(-1)!.seq : undefined,
    };
  }

  async getMemories(
    scope: { userId?: string | undefined },
    ids: readonly string[],
  ): Promise<Memory[]> {
    const owner = keys.ownerPart(checkedUser(scope.userId));
    const wanted = checkedIds('getMemories', ids);
    if (wanted.length === 0) return [];
    const { rows } = await this.db.query<MemoryRow>(
      'read memories',
      {},
      () =>
        `SELECT id, resource, memory FROM ${this.t('agentstate_memories')}
         WHERE owner = $1 AND id = ANY($2::text[])`,
      [owner, wanted],
    );
    const found = new Map(rows.map((row) => [row.id, row]));
    return wanted.flatMap((id) => {
      const row = found.get(id);
      return row ? [decodeMemory(owner, row)] : [];
    });
  }

  async deleteMemories(
    scope: { userId?: string | undefined },
    ids: readonly string[],
  ): Promise<number> {
    const owner = keys.ownerPart(checkedUser(scope.userId));
    const wanted = checkedIds('deleteMemories', ids);
    if (wanted.length === 0) return 0;
    const { rows } = await this.db.query<{ deleted: number }>(
      'delete memories',
      {},
      () =>
        `WITH del AS (
           DELETE FROM ${this.t('agentstate_memories')}
           WHERE owner = $1 AND id = ANY($2::text[]) RETURNING 1
         ), bump AS (
           UPDATE ${this.t('agentstate_memory_owners')} SET epoch = epoch + 1
           WHERE owner = $1 AND EXISTS (SELECT 1 FROM del)
         )
         SELECT count(*)::int AS deleted FROM del`,
      [owner, wanted],
    );
    return rows[0]?.deleted ?? 0;
  }

  async forgetMemories(scope: MemoryScope): Promise<ForgetResult> {
    const { userId, resource } = checkedScope(scope);
    const owner = keys.ownerPart(userId);
    const memories = this.t('agentstate_memories');
    const working = this.t('agentstate_working_memories');
    const { rows } = await this.db.query<{ memories: number; working: number }>(
      'forget memories',
      {},
      () =>
        `WITH del AS (
           DELETE FROM ${memories} WHERE owner = $1 AND ($2::text IS NULL OR resource = $2)
           RETURNING 1
         ), wm AS (
           DELETE FROM ${working} WHERE owner = $1 AND ($2::text IS NULL OR resource = $2)
           RETURNING 1
         ), bump AS (
           UPDATE ${this.t('agentstate_memory_owners')} SET epoch = epoch + 1 WHERE owner = $1
         )
         SELECT (SELECT count(*) FROM del)::int AS memories, (SELECT count(*) FROM wm)::int AS working`,
      [owner, resource ?? null],
    );
    const result = { memories: rows[0]?.memories ?? 0, workingMemories: rows[0]?.working ?? 0 };
    if (result.memories + result.workingMemories > 0) await this.vacuum();
    return result;
  }

  async memoryResources(scope: { userId?: string | undefined }): Promise<MemoryResource[]> {
    const owner = keys.ownerPart(checkedUser(scope.userId));
    const { rows } = await this.db.query<{ resource: string; memories: number; working: boolean }>(
      'list memory resources',
      {},
      () =>
        `SELECT coalesce(m.resource, w.resource) AS resource, coalesce(m.n, 0)::int AS memories,
           w.resource IS NOT NULL AS working
         FROM (SELECT resource, count(*) AS n FROM ${this.t('agentstate_memories')}
               WHERE owner = $1 GROUP BY resource) AS m
         FULL JOIN (SELECT resource FROM ${this.t('agentstate_working_memories')}
               WHERE owner = $1) AS w ON w.resource = m.resource
         ORDER BY 1`,
      [owner],
    );
    return rows.map((row) => ({
      ...(row.resource === '' ? {} : { resource: row.resource }),
      memories: row.memories,
      workingMemory: row.working,
    }));
  }

  /**
   * After a forget: `VACUUM` of the memory tables (`VACUUM FULL` with `memoryErase: 'rewrite'`),
   * so the erased rows' dead tuples leave now rather than at autovacuum's next pass. One
   * statement outside a transaction. A failure to vacuum leaves the forget done: the rows are
   * deleted and committed, and autovacuum prunes them later.
   */
  private async vacuum(): Promise<void> {
    const full = this.erase === 'rewrite' ? 'FULL ' : '';
    await this.db
      .query(
        'vacuum the memory tables',
        {},
        () =>
          `VACUUM ${full}${this.t('agentstate_memories')}, ${this.t('agentstate_working_memories')}`,
        [],
      )
      .catch(() => undefined);
  }

  /** Refuses a write whose vectors differ in dimension from their owner's stored ones. */
  private async checkDimensions(
    client: pg.ClientBase,
    owners: ReadonlyMap<string, readonly CheckedMemory[]>,
  ): Promise<void> {
    const pairs = [...owners].flatMap(([owner, list]) =>
      [...new Set(list.map((m) => m.model))].map((model) => ({ owner, model })),
    );
    const { rows } = await client.query<{ owner: string; model: string; dims: number | null }>(
      `SELECT x.owner, x.model, (SELECT m.dims FROM ${this.t('agentstate_memories')} AS m
         WHERE m.owner = x.owner AND m.model = x.model LIMIT 1) AS dims
       FROM unnest($1::text[], $2::text[]) AS x(owner, model)`,
      [pairs.map((p) => p.owner), pairs.map((p) => p.model)],
    );
    const stored = new Map(rows.map((r) => [`${r.owner}\u0000${r.model}`, r.dims]));
    for (const [owner, list] of owners) {
      for (const m of list) {
        const dims = stored.get(`${owner}\u0000${m.model}`);
        if (dims != null && dims !== m.vector.length) {
          throw dimensionMismatch(m.id, m.model, m.vector.length, dims);
        }
      }
    }
  }
}
