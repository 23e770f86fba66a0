import { describe, expect, it } from 'vitest';
import {
  MEMORY_SMOKE_SIZES,
  memoryNotMeasured,
  memoryRows,
  memoryTargets,
  type MemoryRaw,
  type StoreRun,
} from '../../bench/workloads/memory-figures.js';
import { renderTable } from '../../bench/table.js';

/** Ten searches of `ms` each. */
const times = (ms: number): number[] => Array.from({ length: 10 }, () => ms);

/** A store's run: every query taking `ms` (two passes), recall `recall`. */
const run = (store: StoreRun['store'], ms: number, recall = 1): StoreRun => ({
  store,
  count: 200,
  batches: [
    { memories: 100, ms: 50 },
    { memories: 100, ms: 150 },
  ],
  firstSearchMs: 40,
  rssBytes: 100 * 2 ** 20,
  passes: [times(ms), times(ms * 2)],
  recall,
});

const raw: MemoryRaw = {
  sizes: MEMORY_SMOKE_SIZES,
  passes: 2,
  floors: [
    {
      count: 200,
      jsLoop: [times(4), times(4)],
      usearch: [times(1), times(2)],
    },
  ],
  stores: [
    run('level', 2),
    run('langgraph-memory', 10),
    run('pglite', 5, 0.9),
    { ...run('langgraph-postgres', 20), unavailable: 'failed: no pgvector' },
    { ...run('postgres', 3), serverRssBytes: 2 ** 30 },
  ],
};

describe("the memory bench's table", () => {
  it('gives each store its p50 and p99 per pass, the first search, recall@10, ingest and RSS', () => {
    const rows = memoryRows(raw);
    const level = rows.filter((r) =>
      r.section.endsWith('200 memories in one scope: agentstate, LevelDB'),
    );
    expect(level.map((r) => [r.name.trim(), r.summary.median])).toEqual([
      ['search p50', 3],
      ['search p99', 3],
      ['p50 / the usearch floor', 2],
      ['p50 / the JavaScript-loop floor', 0.75],
      ['first search (a fresh process: loads the scope)', 40],
      ['recall@10 against exact search', 1],
      ['ingest, batches of 100', 1000],
      ['RSS after loading the scope (the searching process)', 100 * 2 ** 20],
    ]);
    expect(level[0]!.summary).toMatchObject({ min: 2, max: 4 });
    const text = renderTable(rows, 2);
    expect(text).toContain('RSS of the PGlite server process');
    expect(text).toContain('1000/s');
    expect(text).toContain('0.900');
    expect(text).not.toContain(
      'LangGraph.js PostgresStore with an index (PGlite, pgvector)  median',
    );
  });

  it('puts agentstate beside LangGraph.js, a ratio above 1 when agentstate is faster', () => {
    const pair = memoryRows(raw).filter((r) =>
      r.section.endsWith('agentstate, LevelDB against LangGraph.js InMemoryStore with an index'),
    );
    expect(pair.map((r) => [r.name.trim(), r.summary.median])).toEqual([
      ['agentstate: search p50', 3],
      ['peer: search p50', 15],
      ['peer / agentstate (above 1: agentstate ahead)', 5],
      ['agentstate: search p99', 3],
      ['peer: search p99', 15],
      ['peer / agentstate (above 1: agentstate ahead)', 5],
      ['agentstate: ingest', 1000],
      ['peer: ingest', 1000],
      ['agentstate / peer (above 1: agentstate ahead)', 1],
    ]);
  });

  it('holds approximate indexes to recall@10 >= 0.95 and agentstate to faster, and says what did not run', () => {
    const targets = memoryTargets(raw);
    expect(targets.map((t) => [t.name.split(': ').slice(1).join(': '), t.pass])).toEqual([
      [
        'agentstate, PostgreSQL with pgvector (PGlite, HNSW): recall@10 against exact search',
        false,
      ],
      [
        "agentstate, LevelDB against LangGraph.js InMemoryStore with an index: LangGraph.js's search p50 / agentstate's",
        true,
      ],
    ]);
    expect(memoryNotMeasured(raw)).toEqual([
      'Memory recall, 200 memories in one scope: LangGraph.js PostgresStore with an index (PGlite, pgvector): not measured: failed: no pgvector',
    ]);
  });
});
