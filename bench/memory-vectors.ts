/**
 * The memory bench's data (issue 43): seeded random unit vectors in clusters, so that nearest
 * neighbours mean something, and the same query set for every store. Every vector is a
 * function of the seed and its index alone: a child process makes the same memory `i` (or
 * query `j`) as the bench without being sent it, whatever the count.
 */
import { mulberry32 } from '../src/core/seeded-random.js';

/** The shape of the data: how many dimensions, how many cluster centres, which seed. */
export interface VectorSpace {
  dimensions: number;
  clusters: number;
  seed: number;
}

/** 1,536 dimensions (OpenAI's text-embedding-3-small), 1,000 clusters. */
export const MEMORY_SPACE: VectorSpace = { dimensions: 1536, clusters: 1000, seed: 43 };

/** Fills `out` with standard normal samples (Box-Muller). */
function fillNormal(out: Float32Array, random: () => number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u = 1 - random();
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}

function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/** A stream number for each kind of vector, so no two kinds share a generator's seed. */
const CENTRE = 1;
const MEMORY = 2;
const QUERY = 3;

const seedOf = (space: VectorSpace, kind: number, index: number): number =>
  Math.imul(space.seed + 0x9e3779b9 * kind, 2654435761) ^ Math.imul(index + 1, 0x85ebca6b);

/**
 * The data set: the cluster centres (unit vectors), and vectors made from them. A memory or
 * query lies near one centre, at a distance of its own (noise of norm 0.4 to 1.0), so the
 * neighbours of a query are mostly its cluster's members, the nearer ones first.
 */
export class MemoryVectors {
  private readonly centres: Float32Array;

  constructor(readonly space: VectorSpace = MEMORY_SPACE) {
    const d = space.dimensions;
    this.centres = new Float32Array(space.clusters * d);
    const row = new Float32Array(d);
    for (let c = 0; c < space.clusters; c++) {
      fillNormal(row, mulberry32(seedOf(space, CENTRE, c)));
      this.centres.set(normalize(row), c * d);
    }
  }

  /** Memory `index`'s vector (written into `out` when given). */
  memory(index: number, out?: Float32Array): Float32Array {
    return this.near(MEMORY, index, out);
  }

  /** Query `index`'s vector. */
  query(index: number): Float32Array {
    return this.near(QUERY, index);
  }

  /** Memories `0..count-1`, row-major in one array. */
  memories(count: number, from = 0): Float32Array {
    const d = this.space.dimensions;
    const all = new Float32Array(count * d);
    for (let i = 0; i < count; i++) this.memory(from + i, all.subarray(i * d, (i + 1) * d));
    return all;
  }

  private near(kind: number, index: number, out?: Float32Array): Float32Array {
    const d = this.space.dimensions;
    const random = mulberry32(seedOf(this.space, kind, index));
    const centre = Math.floor(random() * this.space.clusters);
    const spread = 0.4 + 0.6 * random();
    const v = out ?? new Float32Array(d);
    fillNormal(v, random);
    const scale = spread / Math.sqrt(d);
    for (let i = 0; i < d; i++) v[i] = this.centres[centre * d + i]! + v[i]! * scale;
    return normalize(v);
  }
}

/** The text a memory or query is stored under: the key into the vector table (`m12`, `q3`). */
export const memoryText = (index: number): string => `m${index}`;
export const queryText = (index: number): string => `q${index}`;

/**
 * The vectors the stores are given, made before the clock starts: every query, and the
 * memories of the batch about to be written. A store's `embed` looks a bench text up here.
 */
export class VectorTable {
  private readonly queries: Float32Array[];
  private batch = new Map<number, Float32Array>();

  constructor(
    readonly vectors: MemoryVectors,
    queries: number,
  ) {
    this.queries = Array.from({ length: queries }, (_, j) => vectors.query(j));
  }

  /** Makes memories `from..from+count-1` (the batch about to be written), dropping the last. */
  prepare(from: number, count: number): void {
    this.batch = new Map();
    for (let i = from; i < from + count; i++) this.batch.set(i, this.vectors.memory(i));
  }

  memory(index: number): Float32Array {
    const v = this.batch.get(index);
    if (!v) throw new RangeError(`memory ${index} is not in the prepared batch`);
    return v;
  }

  query(index: number): Float32Array {
    const v = this.queries[index];
    if (!v) throw new RangeError(`no query ${index}`);
    return v;
  }

  /** The vector a bench text stands for (`m12`: memory 12, `q3`: query 3). */
  ofText(text: string): Float32Array {
    const index = Number(text.slice(1));
    if (text[0] === 'm') return this.memory(index);
    if (text[0] === 'q') return this.query(index);
    throw new RangeError(`not a bench text: ${JSON.stringify(text.slice(0, 40))}`);
  }
}

/**
 * recall@k of `found` against `exact` (per query, the ids an exact search answered): the
 * share of the exact top k that was found, averaged over the queries.
 */
export function recallAt(
  k: number,
  found: readonly string[][],
  exact: readonly string[][],
): number {
  if (found.length !== exact.length || exact.length === 0)
    throw new RangeError(`${found.length} answers against ${exact.length} exact ones`);
  let total = 0;
  for (let q = 0; q < exact.length; q++) {
    const truth = new Set(exact[q]!.slice(0, k));
    const hits = found[q]!.slice(0, k).filter((id) => truth.has(id)).length;
    total += hits / Math.max(1, truth.size);
  }
  return total / exact.length;
}
