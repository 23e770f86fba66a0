import type pg from 'pg';
import { bytesVector, vectorText } from './postgres-memory-rows.js';
import { quoteIdent } from './postgres-schema.js';

/** The pgvector of a database: the schema of its objects, and whether its HNSW scans iterate. */
export interface Pgvector {
  /** The quoted schema holding the `vector` type and its operators. */
  schema: string;
  /** pgvector 0.8 or later: `hnsw.iterative_scan` keeps a filtered search from coming up short. */
  iterative: boolean;
}

/** HNSW indexes `vector` columns of at most this many dimensions (pgvector's limit). */
export const HNSW_MAX_DIMENSIONS = 2_000;

/**
 * Makes the memories searchable by pgvector when the database has it: `CREATE EXTENSION IF NOT
 * EXISTS vector` (nothing to do when it is installed; refused without the extension's files or
 * the right to create it), then the `embedding` column (a `vector` of any dimension), then the
 * embedding of any memory written before (by a process that found no pgvector). One
 * transaction under the schema's advisory lock, so processes starting together do it once.
 * Answers `undefined` when the server refuses (the store searches exactly, in process); a
 * connection failure is thrown.
 */
export async function enablePgvector(
  client: pg.ClientBase,
  schema: string,
  t: (name: string) => string,
): Promise<Pgvector | undefined> {
  const memories = t('agentstate_memories');
  const installed = async (): Promise<Pgvector | undefined> => {
    const { rows } = await client.query<{ schema: string; version: string; column: boolean }>(
      `SELECT n.nspname AS schema, e.extversion AS version,
         EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass
           AND attname = 'embedding' AND NOT attisdropped) AS column
       FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = 'vector'`,
      [memories],
    );
    const row = rows[0];
    if (row === undefined || !row.column) return undefined;
    const [major = 0, minor = 0] = row.version.split('.').map(Number);
    return { schema: quoteIdent(row.schema), iterative: major > 0 || minor >= 8 };
  };
  const found = await installed();
  if (found) return found;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentstate:${schema}`]);
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    const { rows } = await client.query<{ schema: string }>(
      `SELECT n.nspname AS schema FROM pg_extension e
       JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
    );
    const vectorType = `${quoteIdent(rows[0]!.schema)}.vector`;
    await client.query(`ALTER TABLE ${memories} ADD COLUMN IF NOT EXISTS embedding ${vectorType}`);
    await backfillEmbeddings(client, memories, vectorType);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // The server answered (no extension here, no right to create it): search without it.
    if (typeof (error as { code?: unknown }).code === 'string') return undefined;
    throw error;
  }
  return installed();
}

const BACKFILL_PAGE = 500;

/** Gives the memories kept as bytes (before pgvector was installed) their `embedding`. */
async function backfillEmbeddings(
  client: pg.ClientBase,
  memories: string,
  vectorType: string,
): Promise<void> {
  let after = ['', ''];
  for (;;) {
    const { rows } = await client.query<{
      owner: string;
      id: string;
      dims: number;
      vector: Buffer;
    }>(
      `SELECT owner, id, dims, vector FROM ${memories}
       WHERE embedding IS NULL AND vector IS NOT NULL AND (owner, id) > ($1, $2)
       ORDER BY owner, id LIMIT ${BACKFILL_PAGE}`,
      after,
    );
    if (rows.length === 0) return;
    after = [rows.at(-1)!.owner, rows.at(-1)!.id];
    await client.query(
      `UPDATE ${memories} AS m SET vector = NULL, embedding = f.embedding::${vectorType}
       FROM unnest($1::text[], $2::text[], $3::text[]) AS f(owner, id, embedding)
       WHERE m.owner = f.owner AND m.id = f.id AND f.embedding IS NOT NULL`,
      [
        rows.map((r) => r.owner),
        rows.map((r) => r.id),
        rows.map((r) => {
          const vector = bytesVector(r.vector, r.dims);
          // A vector of damaged bytes stays as it is (a search does not find it).
          return vector === undefined ? null : vectorText(vector);
        }),
      ],
    );
    if (rows.length < BACKFILL_PAGE) return;
  }
}

/**
 * The partial HNSW index of one dimension (cosine distance), made the first time a memory of
 * `dimensions` is written (a `vector` of more than 2,000 dimensions has none: its searches scan
 * the owner's rows exactly). `IF NOT EXISTS` under the schema's advisory lock: made once.
 */
export async function ensureHnswIndex(
  client: pg.ClientBase,
  schema: string,
  t: (name: string) => string,
  pgvector: Pgvector,
  dimensions: number,
): Promise<void> {
  if (dimensions > HNSW_MAX_DIMENSIONS) return;
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentstate:${schema}`]);
  await client.query(
    `CREATE INDEX IF NOT EXISTS ${quoteIdent(`agentstate_memories_hnsw_${dimensions}`)}
     ON ${t('agentstate_memories')}
     USING hnsw ((embedding::${pgvector.schema}.vector(${dimensions})) ${pgvector.schema}.vector_cosine_ops)
     WHERE dims = ${dimensions}`,
  );
}
