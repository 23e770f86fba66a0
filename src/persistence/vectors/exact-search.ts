import { createRequire } from 'node:module';
import type { MetricKind, exactSearch as usearchExactSearch } from 'usearch';

/** The top `count` rows of `rows` (row-major, `dimensions` wide) by cosine similarity to `query`. */
export interface RowMatch {
  row: number;
  score: number;
}

/** usearch's exact search, typed by the package itself (loaded at the first search). */
type UsearchExact = typeof usearchExactSearch;

/**
 * The native exact search, loaded at the first search (a process that never searches never
 * loads it): usearch's SIMD kernels are about 6 times faster than a JavaScript loop at 1,536
 * dimensions (5 ms against 30 ms for 10,000 rows, measured by `npm run bench -- --memory`).
 * `null` once loading failed (no build for this platform): the JavaScript loop answers alike.
 */
export class ExactSearch {
  private native: UsearchExact | null | undefined;

  constructor(private readonly load: () => UsearchExact | null = loadUsearch) {}

  /** Whether the native kernels answer (false: the JavaScript loop). */
  get isNative(): boolean {
    this.native ??= this.load();
    return this.native !== null;
  }

  /** The `count` best rows of the first `size` rows, best first (`count` <= `size`). */
  search(
    rows: Float32Array,
    size: number,
    dimensions: number,
    query: Float32Array,
    count: number,
  ): RowMatch[] {
    if (size === 0 || count <= 0) return [];
    const k = Math.min(count, size);
    this.native ??= this.load();
    const dataset = rows.length === size * dimensions ? rows : rows.subarray(0, size * dimensions);
    if (this.native === null) return scan(dataset, size, dimensions, query, k);
    const found = this.native(dataset, query, dimensions, k, 'cos' as MetricKind);
    const matches: RowMatch[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      matches.push({ row: Number(found.keys[i]), score: 1 - found.distances[i]! });
    }
    return matches;
  }
}

function loadUsearch(): UsearchExact | null {
  try {
    const required = createRequire(import.meta.url)('usearch') as {
      exactSearch?: UsearchExact;
      default?: { exactSearch?: UsearchExact };
    };
    return required.exactSearch ?? required.default?.exactSearch ?? null;
  } catch {
    return null;
  }
}

/** Cosine similarity of every row with `query`, the best `k` kept (a JavaScript loop). */
export function scan(
  rows: Float32Array,
  size: number,
  dimensions: number,
  query: Float32Array,
  k: number,
): RowMatch[] {
  let qq = 0;
  for (let j = 0; j < dimensions; j++) qq += query[j]! * query[j]!;
  const qn = Math.sqrt(qq);
  const best: RowMatch[] = [];
  for (let i = 0; i < size; i++) {
    const at = i * dimensions;
    let dot = 0;
    let rr = 0;
    for (let j = 0; j < dimensions; j++) {
      const v = rows[at + j]!;
      dot += v * query[j]!;
      rr += v * v;
    }
    const score = dot / (Math.sqrt(rr) * qn);
    if (best.length < k || score > best[best.length - 1]!.score) {
      let place = best.length < k ? best.length : best.length - 1;
      best[place] = { row: i, score };
      while (place > 0 && best[place - 1]!.score < score) {
        [best[place - 1], best[place]] = [best[place]!, best[place - 1]!];
        place--;
      }
    }
  }
  return best;
}
