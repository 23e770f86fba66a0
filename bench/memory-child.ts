/**
 * The memory bench (issue 43) in a fresh process of its own, run with --expose-gc: one store,
 * one phase. Usage: memory-child.ts '<MemoryChildTask as JSON>'
 *  - `ingest`: memories 0..count-1 written in batches (each batch's vectors made before the
 *    clock starts): the time of each batch.
 *  - `search`: the store opened again (nothing cached), the first search timed apart (it loads
 *    the scope), the RSS after a full GC, then every query `passes` times: each search's time,
 *    and the ids the first pass found (for recall@10).
 *  - `both`: ingest then search in this process (a store that keeps nothing, LangGraph.js's
 *    InMemoryStore).
 * Prints one JSON line (`MemoryChildResult`); a store that cannot hold memory here answers
 * `{ unavailable: why }`.
 */
import { MemoryVectors, VectorTable } from './memory-vectors.js';
import {
  openBenchStore,
  StoreUnavailable,
  type BenchMemoryStore,
  type BenchStoreKind,
  type BenchStoreWhere,
} from './memory-stores.js';

export interface MemoryChildTask {
  kind: BenchStoreKind;
  phase: 'ingest' | 'search' | 'both';
  count: number;
  batch: number;
  queries: number;
  passes: number;
  topK: number;
  where: BenchStoreWhere;
}

export interface MemoryChildResult {
  unavailable?: string;
  /** Each batch's memories and time (ms). */
  batches?: { memories: number; ms: number }[];
  /** The first search, which loads the scope into a store that caches it. */
  firstSearchMs?: number;
  /** RSS after the first search and a full GC. */
  rssBytes?: number;
  /** Each pass's search times (ms), in query order. */
  passes?: number[][];
  /** The ids the first pass found, per query. */
  found?: string[][];
}

const gc = (globalThis as { gc?: () => void }).gc;
const task = JSON.parse(process.argv[2] ?? '{}') as MemoryChildTask;
if (!gc || !task.kind || !task.phase)
  throw new Error("usage: --expose-gc memory-child.ts '<task as JSON>'");

async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage.rss();
}

async function ingest(store: BenchMemoryStore, table: VectorTable): Promise<MemoryChildResult> {
  const batches: { memories: number; ms: number }[] = [];
  for (let from = 0; from < task.count; from += task.batch) {
    const n = Math.min(task.batch, task.count - from);
    table.prepare(from, n);
    const started = performance.now();
    await store.ingest(from, n);
    batches.push({ memories: n, ms: performance.now() - started });
  }
  table.prepare(0, 0);
  return { batches };
}

async function search(store: BenchMemoryStore): Promise<MemoryChildResult> {
  let started = performance.now();
  await store.search(0, task.topK);
  const firstSearchMs = performance.now() - started;
  const rssBytes = await settledRss();
  const passes: number[][] = [];
  const found: string[][] = [];
  for (let pass = 0; pass < task.passes; pass++) {
    const times: number[] = [];
    for (let q = 0; q < task.queries; q++) {
      started = performance.now();
      const ids = await store.search(q, task.topK);
      times.push(performance.now() - started);
      if (pass === 0) found.push(ids);
    }
    passes.push(times);
  }
  return { firstSearchMs, rssBytes, passes, found };
}

async function main(): Promise<MemoryChildResult> {
  const table = new VectorTable(new MemoryVectors(), task.queries);
  let store: BenchMemoryStore;
  try {
    store = await openBenchStore(task.kind, table, task.where);
  } catch (error) {
    if (error instanceof StoreUnavailable) return { unavailable: error.message };
    throw error;
  }
  try {
    const written = task.phase === 'search' ? {} : await ingest(store, table);
    const searched = task.phase === 'ingest' ? {} : await search(store);
    return { ...written, ...searched };
  } finally {
    await store.close();
  }
}

process.stdout.write(`${JSON.stringify(await main())}\n`);
