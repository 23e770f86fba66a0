/**
 * The stores the memory bench measures, behind one small interface: agentstate's stores
 * through their memory capability (`putMemories`, `searchMemories`), and LangGraph.js's
 * `InMemoryStore` and `PostgresStore` with an index whose `embed` looks the bench's texts up in
 * the vector table (`memory-vectors.ts`): every side searches the same vectors.
 */
import { Embeddings } from '@langchain/core/embeddings';
import { InMemoryStore, type Operation } from '@langchain/langgraph-checkpoint';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { LevelSessionStore, type SessionStore } from '../src/index.js';
import { PostgresSessionStore } from '../src/postgres.js';
import { hasMemory } from '../src/persistence/store-supports.js';
import type { MemoryInput } from '../src/persistence/memory-store.js';
import { memoryText, queryText, type VectorTable } from './memory-vectors.js';

/** The one user (one scope) every memory of the bench belongs to. */
export const BENCH_USER = 'bench-user';
/** The embedding model's name the memories carry. */
export const BENCH_MODEL = 'bench-1536';

/** One store as the bench drives it. */
export interface BenchMemoryStore {
  /** Keeps memories `from..from+count-1` in one batch. */
  ingest(from: number, count: number): Promise<void>;
  /** The ids (bench texts) of the `topK` best matches of query `index`, best first. */
  search(index: number, topK: number): Promise<string[]>;
  close(): Promise<void>;
}

/** Which store: agentstate's on LevelDB or PostgreSQL, or LangGraph.js's. */
export type BenchStoreKind = 'level' | 'postgres' | 'langgraph-memory' | 'langgraph-postgres';

/** Where a store keeps its data: a folder (LevelDB) or a server (PostgreSQL). */
export interface BenchStoreWhere {
  path?: string | undefined;
  url?: string | undefined;
  schema?: string | undefined;
}

/** Thrown when a store cannot hold memory here; its message says why (the bench prints it). */
export class StoreUnavailable extends Error {}

export async function openBenchStore(
  kind: BenchStoreKind,
  table: VectorTable,
  where: BenchStoreWhere,
): Promise<BenchMemoryStore> {
  switch (kind) {
    case 'level':
      return agentstateStore(
        await LevelSessionStore.open({ path: required(where.path, 'path') }),
        table,
      );
    case 'postgres':
      return agentstateStore(
        await PostgresSessionStore.open({
          connectionString: required(where.url, 'url'),
          schema: where.schema,
          poolSize: 1,
          // Without pgvector the vectors are searched in process: room for 100,000 of 1,536.
          memoryCacheBytes: 2 ** 30,
        }),
        table,
      );
    case 'langgraph-memory':
      return langGraphStore(new InMemoryStore({ index: langGraphIndex(table) }));
    case 'langgraph-postgres': {
      const store = new PostgresStore({
        connectionOptions: { connectionString: required(where.url, 'url'), max: 1 },
        schema: where.schema,
        index: langGraphIndex(table),
      });
      await store.setup();
      return langGraphStore(store, () => store.stop());
    }
  }
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new TypeError(`the bench store needs its ${name}`);
  return value;
}

/** agentstate's store through its memory capability: one scope, one model. */
function agentstateStore(store: SessionStore, table: VectorTable): BenchMemoryStore {
  if (!hasMemory(store)) {
    void store.close();
    throw new StoreUnavailable(
      `${store.constructor.name} has no memory capability here (STORE_CONTRACT.capabilities.memory)`,
    );
  }
  return {
    async ingest(from, count) {
      const batch: MemoryInput[] = [];
      for (let i = from; i < from + count; i++) {
        const text = memoryText(i);
        const vector = table.memory(i);
        batch.push({
          userId: BENCH_USER,
          id: text,
          kind: 'fact',
          text,
          at: i,
          model: BENCH_MODEL,
          vector,
        });
      }
      await store.putMemories(batch);
    },
    async search(index, topK) {
      const matches = await store.searchMemories({
        userId: BENCH_USER,
        model: BENCH_MODEL,
        vector: table.query(index),
        topK,
      });
      return matches.map((m) => m.memory.id);
    },
    close: () => store.close(),
  };
}

/**
 * LangGraph's index: a LangChain embeddings model whose vectors are the table's, `number[]`
 * as LangChain's models answer.
 */
class TableEmbeddings extends Embeddings {
  constructor(private readonly table: VectorTable) {
    super({});
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => Array.from(this.table.ofText(text))));
  }
  embedQuery(text: string): Promise<number[]> {
    return Promise.resolve(Array.from(this.table.ofText(text)));
  }
}

function langGraphIndex(table: VectorTable) {
  const embeddings = new TableEmbeddings(table);
  return { dims: table.vectors.space.dimensions, fields: ['text'], embeddings, embed: embeddings };
}

interface LangGraphBatch {
  batch(operations: Operation[]): Promise<unknown[]>;
  search(
    namespace: string[],
    options: { query: string; limit: number },
  ): Promise<{ key: string; value: Record<string, unknown> }[]>;
}

const NAMESPACE = ['memories', BENCH_USER];

/** LangGraph.js's store: one `batch` of puts per ingest batch, `search(namespace, { query, limit })`. */
function langGraphStore(
  store: LangGraphBatch,
  stop: () => Promise<void> = async () => undefined,
): BenchMemoryStore {
  return {
    async ingest(from, count) {
      const puts: Operation[] = [];
      for (let i = from; i < from + count; i++) {
        puts.push({ namespace: NAMESPACE, key: memoryText(i), value: { text: memoryText(i) } });
      }
      await store.batch(puts);
    },
    async search(index, topK) {
      const items = await store.search(NAMESPACE, { query: queryText(index), limit: topK });
      return items.map((item) => item.key);
    },
    close: stop,
  };
}
