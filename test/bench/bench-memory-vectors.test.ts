import { describe, expect, it } from 'vitest';
import { MemoryVectors, recallAt, VectorTable } from '../../bench/memory-vectors.js';
import { quantile } from '../../bench/stats.js';

const small = { dimensions: 64, clusters: 8, seed: 7 };

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((n, v, i) => n + v * b[i]!, 0);

describe("the memory bench's vectors", () => {
  it('makes memory i and query j from the seed alone: the same in every process, whatever the count', () => {
    const one = new MemoryVectors(small);
    const other = new MemoryVectors(small);
    expect(Array.from(one.memory(5))).toEqual(Array.from(other.memory(5)));
    expect(Array.from(one.query(3))).toEqual(Array.from(other.query(3)));
    const rows = one.memories(10);
    expect(Array.from(rows.subarray(5 * 64, 6 * 64))).toEqual(Array.from(one.memory(5)));
    expect(Array.from(one.memory(5))).not.toEqual(Array.from(one.query(5)));
    expect(Array.from(new MemoryVectors({ ...small, seed: 8 }).memory(5))).not.toEqual(
      Array.from(one.memory(5)),
    );
  });

  it('makes unit vectors in clusters: a query is nearer to some memories than to the rest', () => {
    const vectors = new MemoryVectors(small);
    for (let i = 0; i < 20; i++) expect(Math.hypot(...vectors.memory(i))).toBeCloseTo(1, 5);
    const scores = Array.from({ length: 200 }, (_, i) => dot(vectors.query(0), vectors.memory(i)));
    const sorted = [...scores].sort((a, b) => b - a);
    // Its own cluster's members (about 1 in 8) against the others: far apart.
    expect(sorted[0]!).toBeGreaterThan(0.4);
    expect(quantile(scores, 0.5)).toBeLessThan(0.3);
  });

  it('hands the stores the vector a bench text stands for, only for the batch prepared', () => {
    const vectors = new MemoryVectors(small);
    const table = new VectorTable(vectors, 3);
    table.prepare(10, 5);
    expect(Array.from(table.ofText('m12'))).toEqual(Array.from(vectors.memory(12)));
    expect(Array.from(table.ofText('q2'))).toEqual(Array.from(vectors.query(2)));
    expect(() => table.ofText('m9')).toThrow('memory 9 is not in the prepared batch');
    expect(() => table.ofText('q3')).toThrow('no query 3');
    expect(() => table.ofText('x1')).toThrow('not a bench text');
  });
});

describe('recall@k and quantiles', () => {
  it('is the share of the exact top k found, averaged over the queries', () => {
    const exact = [
      ['a', 'b', 'c', 'd'],
      ['e', 'f', 'g', 'h'],
    ];
    expect(recallAt(4, exact, exact)).toBe(1);
    expect(
      recallAt(
        4,
        [
          ['a', 'b', 'x', 'y'],
          ['h', 'g', 'f', 'e'],
        ],
        exact,
      ),
    ).toBe(0.75);
    expect(() => recallAt(4, [], exact)).toThrow('0 answers against 2 exact ones');
  });

  it('takes p50 and p99 by nearest rank', () => {
    const times = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(times, 0.5)).toBe(50);
    expect(quantile(times, 0.99)).toBe(99);
    expect(quantile([3], 0.99)).toBe(3);
    expect(quantile([], 0.5)).toBeNaN();
  });
});
