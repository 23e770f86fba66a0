import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { checkedSearch, type CheckedMemory } from '../memory-checks.js';
import type { MemoryMatch, MemorySearch } from '../memory-store.js';
import * as keys from '../session-keys.js';
import { ExactSearch } from '../vectors/exact-search.js';
import { MemoryScopeCache } from './memory-scope-cache.js';
import type { PostgresDatabase } from './postgres-database.js';
import { bytesVector, decodeMemory, vectorText, type MemoryRow } from './postgres-memory-rows.js';
import { enablePgvector, ensureHnswIndex, type Pgvector } from './postgres-pgvector.js';

type CheckedSearch = ReturnType<typeof checkedSearch>;

/**
 * The similarity search of a PostgreSQL store's memory, on one of two paths chosen at the first
 * memory operation (`pgvector()`):
 *
 * - **pgvector** (the database has the extension, or lets the store create it): the vectors in
 *   an `embedding` column, a partial HNSW index per dimension (cosine), each search one query
 *   filtered by owner, model, resource and session, with `hnsw.iterative_scan` (pgvector 0.8
 *   and later) so the filter does not leave it short, and a raised `hnsw.ef_search`;
 * - **exact** (no pgvector): the vectors as float32 bytes, searched in this process over a
 *   `ScopeVectors` per (owner, resource, model) built at its first search and brought up to
 *   date by each search's one query: the rows written since (`seq` past the cached one), or
 *   every row again when a delete or forget moved the owner's `epoch`.
 */
export class PostgresMemorySearch {
  private readonly t: (name: string) => string;
  private mode: Promise<Pgvector | undefined> | undefined;
  /** The dimensions whose HNSW index this store made or found. */
  private readonly indexed = new Set<number>();
  private readonly cache: MemoryScopeCache;
  private readonly exact = new ExactSearch();

  constructor(
    private readonly db: PostgresDatabase,
    cacheBytes: number,
  ) {
    this.t = db.table;
    this.cache = new MemoryScopeCache(Math.floor(cacheBytes / 4));
  }

  /** pgvector as this store uses it, or `undefined`: the exact search (decided once). */
  pgvector(): Promise<Pgvector | undefined> {
    this.mode ??= this.db
      .withClient('enable vector search', (client) =>
        enablePgvector(client, this.db.schema, this.t),
      )
      .catch((error: unknown) => {
        this.mode = undefined;
        throw error;
      });
    return this.mode;
  }

  async searchMemories(query: MemorySearch): Promise<MemoryMatch[]> {
    const search = checkedSearch(query);
    const owner = keys.ownerPart(search.userId);
    const pgvector = await this.pgvector();
    return pgvector
      ? await this.searchIndexed(pgvector, owner, search)
      : await this.searchExact(owner, search);
  }

  /** Makes the HNSW index of each dimension of `memories` this store has not made yet. */
  async indexDimensions(pgvector: Pgvector, memories: readonly CheckedMemory[]): Promise<void> {
    const dims = new Set(memories.map((m) => m.vector.length).filter((d) => !this.indexed.has(d)));
    for (const dimensions of dims) {
      await this.db.transaction('index memories', (client) =>
        ensureHnswIndex(client, this.db.schema, this.t, pgvector, dimensions),
      );
      this.indexed.add(dimensions);
    }
  }

  /** The pgvector path: one query on the HNSW index of the query's dimension. */
  private async searchIndexed(
    pgvector: Pgvector,
    owner: string,
    search: CheckedSearch,
  ): Promise<MemoryMatch[]> {
    const dims = search.vector.length;
    const type = `${pgvector.schema}.vector(${dims})`;
    const distance = `embedding::${type} OPERATOR(${pgvector.schema}.<=>) $2::${type}`;
    const efSearch = Math.min(1000, Math.max(100, search.topK * 4));
    const settings = pgvector.iterative
      ? ['SET LOCAL hnsw.iterative_scan = relaxed_order', `SET LOCAL hnsw.ef_search = ${efSearch}`]
      : ['SET LOCAL hnsw.ef_search = 1000'];
    const rows = await this.db.transaction(
      'search memories',
      async (client) =>
        (
          await client.query<MemoryRow & { distance: number }>(
            `SELECT id, resource, memory, ${distance} AS distance
             FROM ${this.t('agentstate_memories')}
             WHERE dims = ${dims} AND owner = $1 AND model = $3
               AND ($4::text IS NULL OR resource = $4)
               AND ($5::text IS NULL OR session_id IS DISTINCT FROM $5)
               AND ($6::text[] IS NULL OR kind = ANY($6::text[]))
             ORDER BY ${distance} LIMIT $7`,
            [
              owner,
              vectorText(search.vector),
              search.model,
              search.resource ?? null,
              search.excludeSessionId ?? null,
              search.kinds ?? null,
              search.topK,
            ],
          )
        ).rows,
      settings,
    );
    const minScore = search.minScore ?? -1;
    return rows
      .map((row) => ({ memory: decodeMemory(owner, row), score: 1 - Number(row.distance) }))
      .filter((match) => match.score >= minScore)
      .sort((a, b) => b.score - a.score);
  }

  /** The exact path: the cached scope brought up to date by one query, then searched here. */
  private async searchExact(owner: string, search: CheckedSearch): Promise<MemoryMatch[]> {
    const dims = search.vector.length;
    const key = JSON.stringify([owner, search.resource ?? null, search.model, dims]);
    const cached = this.cache.get(key);
    const { rows } = await this.db.query<
      {
        top: string;
        epoch: string;
        id: string | null;
        kind: 'message' | 'fact';
        session_id: string | null;
        vector: Buffer;
      } & MemoryRow
    >(
      'search memories',
      {},
      () =>
        `SELECT o.seq AS top, o.epoch, m.id, m.resource, m.kind, m.session_id, m.memory, m.vector
         FROM ${this.t('agentstate_memory_owners')} AS o
         LEFT JOIN ${this.t('agentstate_memories')} AS m ON m.owner = o.owner
           AND m.model = $2 AND m.dims = $3 AND ($4::text IS NULL OR m.resource = $4)
           AND m.seq > CASE WHEN o.epoch = $5 THEN $6 ELSE 0 END AND m.vector IS NOT NULL
         WHERE o.owner = $1`,
      [owner, search.model, dims, search.resource ?? null, cached?.epoch ?? -1, cached?.seq ?? 0],
    );
    const head = rows[0];
    if (head === undefined) return []; // the owner never kept a memory
    const epoch = Number(head.epoch);
    const scope = cached?.epoch === epoch ? cached : this.cache.fresh(key, dims, epoch);
    let added = 0;
    for (const row of rows) {
      if (row.id === null) continue;
      const vector = bytesVector(row.vector, dims);
      if (vector === undefined) {
        throw new InvalidSessionRecordError(
          `mem!${owner}!${row.id}`,
          `its vector is not ${dims} float32 values`,
        );
      }
      const memory = decodeMemory(owner, row);
      scope.vectors.add(
        { id: row.id, kind: row.kind, sessionId: row.session_id ?? undefined },
        vector,
      );
      scope.memories.set(row.id, memory);
      added++;
    }
    scope.seq = Number(head.top);
    this.cache.grew(key, added, dims);
    const found = scope.vectors.search(
      this.exact,
      search.vector,
      search.topK,
      { excludeSessionId: search.excludeSessionId, kinds: search.kinds },
      search.minScore ?? -1,
    );
    return found.map((f) => ({ memory: scope.memories.get(f.id)!, score: f.score }));
  }
}
