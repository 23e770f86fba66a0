import type { MemoryKind } from '../memory-store.js';
import type { ExactSearch } from './exact-search.js';

/** What a search needs to know of a row besides its vector. */
export interface VectorRow {
  id: string;
  kind: MemoryKind;
  sessionId?: string | undefined;
}

/** Which rows a search may answer with. */
export interface RowFilter {
  excludeSessionId?: string | undefined;
  kinds?: readonly MemoryKind[] | undefined;
}

/**
 * The vectors of one scope and embedding model, in one row-major `Float32Array` (a search reads
 * them with one native call, no copy), with each row's id, kind and session. A store keeps one
 * per (user, resource, model) it searched, filled from its records and kept up to date by its
 * own writes; its memory is about `4 x dimensions` bytes a row.
 */
export class ScopeVectors {
  private data: Float32Array;
  private rows: VectorRow[] = [];
  private readonly byId = new Map<string, number>();

  constructor(
    readonly dimensions: number,
    capacity = 64,
  ) {
    this.data = new Float32Array(Math.max(1, capacity) * dimensions);
  }

  get size(): number {
    return this.rows.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds a row (a row whose id is here already is left as it is). */
  add(row: VectorRow, vector: Float32Array | readonly number[]): void {
    if (this.byId.has(row.id)) return;
    const at = this.rows.length;
    if ((at + 1) * this.dimensions > this.data.length) {
      const grown = new Float32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(vector, at * this.dimensions);
    this.rows.push(row);
    this.byId.set(row.id, at);
  }

  /** Removes the rows of `ids` (others are ignored); answers how many went. */
  remove(ids: Iterable<string>): number {
    const gone = new Set<string>();
    for (const id of ids) if (this.byId.has(id)) gone.add(id);
    if (gone.size === 0) return 0;
    const keptRows: VectorRow[] = [];
    const d = this.dimensions;
    for (let i = 0; i < this.rows.length; i++) {
      const row = this.rows[i]!;
      if (gone.has(row.id)) continue;
      if (keptRows.length !== i) this.data.copyWithin(keptRows.length * d, i * d, (i + 1) * d);
      keptRows.push(row);
    }
    this.data.fill(0, keptRows.length * d);
    this.rows = keptRows;
    this.byId.clear();
    keptRows.forEach((row, i) => this.byId.set(row.id, i));
    return gone.size;
  }

  /**
   * The `topK` best rows the filter lets through scoring at least `minScore`, best first. Exact:
   * it asks the kernel for as many more rows as the filter leaves out, so none is missed.
   */
  search(
    exact: ExactSearch,
    query: Float32Array,
    topK: number,
    filter: RowFilter = {},
    minScore = -1,
  ): { id: string; score: number; row: VectorRow }[] {
    const passes = rowPasses(filter);
    let left = 0;
    if (passes) for (const row of this.rows) if (!passes(row)) left++;
    const size = this.rows.length;
    const found = exact.search(
      this.data,
      size,
      this.dimensions,
      query,
      Math.min(size, topK + left),
    );
    const out: { id: string; score: number; row: VectorRow }[] = [];
    for (const { row: at, score } of found) {
      const row = this.rows[at]!;
      if (passes && !passes(row)) continue;
      if (!(score >= minScore)) continue;
      out.push({ id: row.id, score, row });
      if (out.length === topK) break;
    }
    return out;
  }
}

function rowPasses(filter: RowFilter): ((row: VectorRow) => boolean) | undefined {
  const { excludeSessionId, kinds } = filter;
  if (excludeSessionId === undefined && kinds === undefined) return undefined;
  return (row) =>
    (excludeSessionId === undefined || row.sessionId !== excludeSessionId) &&
    (kinds === undefined || kinds.includes(row.kind));
}
