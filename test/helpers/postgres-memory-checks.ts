import type pg from 'pg';
import type { Memory, MemoryInput, MemoryStore } from '../../src/persistence/memory-store.js';

/** A repeatable stream of numbers in [-0.5, 0.5) (Park-Miller), from `seed`. */
export function seededNumbers(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647 - 0.5;
  };
}

/** A random unit-free vector of `dimensions` from `next`, as float32. */
export function randomVector(next: () => number, dimensions: number): Float32Array {
  return Float32Array.from({ length: dimensions }, next);
}

/**
 * `perUser` memories for each of `users` (ids `<user>-<i>`, texts naming user and index, a
 * resource `r<i mod resources>` for half of them, the user's own scope for the rest), vectors
 * from `seed`.
 */
export function usersMemories(
  users: readonly string[],
  perUser: number,
  dimensions: number,
  seed = 7,
  resources = 3,
): MemoryInput[] {
  const next = seededNumbers(seed);
  return users.flatMap((userId) =>
    Array.from({ length: perUser }, (_, i) => ({
      id: `${userId}-${i}`,
      userId,
      ...(i % 2 === 0 ? { resource: `r${i % resources}` } : {}),
      kind: i % 3 === 0 ? ('message' as const) : ('fact' as const),
      text: `secret ${i} of ${userId}`,
      ...(i % 3 === 0 ? { role: 'user' as const, sessionId: `s${i % 5}`, position: i } : {}),
      at: 1_000 + i,
      model: 'm',
      vector: randomVector(next, dimensions),
    })),
  );
}

/** The hex of a vector's little-endian float32 bytes, as a byte scan looks for them. */
export function vectorHex(vector: Float32Array | readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  Array.from(vector).forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('hex');
}

/**
 * Every row of every table of `schema`, as JSON text (`row_to_json`, TOASTed values read back
 * whole): what a byte scan of the store's tables reads. A `bytea` reads as `\x<hex>`, a
 * pgvector `vector` as `[v1,v2,...]`.
 */
export async function schemaRows(pool: pg.Pool, schema: string): Promise<string[]> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name
     FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
    [schema],
  );
  const out: string[] = [];
  for (const { name } of tables) {
    const { rows } = await pool.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM ${name} AS t`,
    );
    for (const row of rows) out.push(row.row);
  }
  return out;
}

/** What one user read through every path (see `readEveryPath`). */
export interface UserReads {
  /** The memories read that are not the user's (by id or by `userId`): none, if isolated. */
  foreign: string[];
  /** How many memories each path answered (search and list per resource, `*` for all). */
  counts: Record<string, number>;
  /** The resources `memoryResources` named (`''` for the user's own scope). */
  resources: string[];
}

/**
 * Every read and search path of `store`, for each of `users` and each resource (`undefined`:
 * all of the user's): searches (queries taken from other users' vectors, topK 1000), every
 * page of lists, a read of every id written, `memoryResources`, and a delete of the other users'
 * ids (which must delete none). `memories` are what was written; a user's ids start `<user>-`.
 */
export async function readEveryPath(
  store: MemoryStore,
  users: readonly string[],
  memories: readonly MemoryInput[],
  resources: readonly (string | undefined)[],
): Promise<Map<string, UserReads>> {
  const out = new Map<string, UserReads>();
  const allIds = memories.map((m) => m.id);
  for (const userId of users) {
    const reads: UserReads = { foreign: [], counts: {}, resources: [] };
    const take = (path: string, found: readonly Memory[]) => {
      reads.counts[path] = found.length;
      for (const m of found) {
        if (m.userId !== userId || !m.id.startsWith(`${userId}-`)) reads.foreign.push(m.id);
      }
    };
    const queries = memories.filter((m) => m.userId !== userId).slice(0, 3);
    for (const resource of resources) {
      for (const [i, query] of queries.entries()) {
        const found = await store.searchMemories({
          userId,
          resource,
          model: 'm',
          vector: query.vector,
          topK: 1000,
        });
        take(
          `search ${resource ?? '*'} ${i}`,
          found.map((f) => f.memory),
        );
      }
      const listed: Memory[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listMemories({ userId, resource, limit: 400, cursor });
        listed.push(...page.memories);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      take(`list ${resource ?? '*'}`, listed);
    }
    take('get', await store.getMemories({ userId }, allIds));
    reads.resources = (await store.memoryResources({ userId })).map((r) => r.resource ?? '');
    const others = memories.filter((m) => m.userId !== userId).map((m) => m.id);
    reads.counts['delete others'] = await store.deleteMemories({ userId }, others);
    out.set(userId, reads);
  }
  return out;
}
