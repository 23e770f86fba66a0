import { describe, expect, it } from 'vitest';
import { ExactSearch } from '../../../src/persistence/vectors/exact-search.js';
import { ScopeVectorCache } from '../../../src/persistence/vectors/scope-vector-cache.js';
import { ScopeVectors } from '../../../src/persistence/vectors/scope-vectors.js';

const exact = new ExactSearch();
const axis = (i: number) =>
  new Float32Array([i === 0 ? 1 : 0.01, i === 1 ? 1 : 0.01, i === 2 ? 1 : 0.01]);
const row = (id: string) => ({ id, kind: 'fact' as const });

/** The ids a scope holds, by asking for all of them. */
const idsOf = (vectors: ScopeVectors) =>
  vectors
    .search(exact, new Float32Array([1, 1, 1]), Math.max(1, vectors.size))
    .map((m) => m.id)
    .sort();

/** A load the test settles when it wants: what the store read, before the writes that follow. */
function pendingLoad(ids: string[]) {
  let settle!: () => void;
  let fail!: (error: Error) => void;
  let calls = 0;
  const loaded = new Promise<ScopeVectors>((resolve, reject) => {
    settle = () => {
      const vectors = new ScopeVectors(3);
      ids.forEach((id, i) => vectors.add(row(id), axis(i)));
      resolve(vectors);
    };
    fail = reject;
  });
  return {
    load: () => {
      calls += 1;
      return loaded;
    },
    settle,
    fail,
    calls: () => calls,
  };
}

describe('ScopeVectorCache', () => {
  it('replays on a loading scope the writes made while it loaded, in order', async () => {
    const cache = new ScopeVectorCache();
    const pending = pendingLoad(['a', 'b']);
    const first = cache.get('k', pending.load);
    const second = cache.get('k', pending.load);
    // Written while the load read the store: whether the load saw them or not, they hold after.
    cache.added('k', row('c'), axis(2));
    cache.removed('k', ['a']);
    cache.added('k', row('a'), axis(0));
    cache.removed('k', ['b', 'c']);
    cache.added('other', row('x'), axis(0));
    pending.settle();
    expect(idsOf(await first)).toEqual(['a']);
    expect(await second).toBe(await first);
    expect(pending.calls()).toBe(1);
    // Loaded: kept current by the writes, no load again.
    cache.added('k', row('d'), axis(1));
    expect(idsOf(await cache.get('k', pending.load))).toEqual(['a', 'd']);
    expect(pending.calls()).toBe(1);
  });

  it('a scope cleared while loading answers empty; once loaded, clearing drops it to load again', async () => {
    const cache = new ScopeVectorCache();
    const pending = pendingLoad(['a', 'b']);
    const loading = cache.get('u1!p1!m', pending.load);
    cache.cleared('u1!');
    cache.added('u1!p1!m', row('new'), axis(2));
    pending.settle();
    expect(idsOf(await loading)).toEqual(['new']);
    cache.cleared('u2!');
    expect(idsOf(await cache.get('u1!p1!m', pending.load))).toEqual(['new']);
    cache.cleared('u1!p1!');
    const again = pendingLoad(['z']);
    again.settle();
    expect(idsOf(await cache.get('u1!p1!m', again.load))).toEqual(['z']);
    expect(again.calls()).toBe(1);
  });

  it('a load that fails is not kept: the next search loads again', async () => {
    const cache = new ScopeVectorCache();
    const broken = pendingLoad([]);
    const loading = cache.get('k', broken.load);
    broken.fail(new Error('damaged'));
    await expect(loading).rejects.toThrow('damaged');
    const fine = pendingLoad(['a']);
    fine.settle();
    expect(idsOf(await cache.get('k', fine.load))).toEqual(['a']);
  });
});

describe('ScopeVectorCache past its bound', () => {
  /** A load of `rows` vectors of 3 dimensions (12 bytes each), counted. */
  const loads: string[] = [];
  const loadOf = (key: string, rows: number) => () => {
    loads.push(key);
    const vectors = new ScopeVectors(3);
    for (let i = 0; i < rows; i++) vectors.add(row(`${key}${i}`), axis(i % 3));
    return Promise.resolve(vectors);
  };

  it('drops the scopes searched least recently, never the one just searched', async () => {
    loads.length = 0;
    const cache = new ScopeVectorCache(5 * 12);
    await cache.get('a', loadOf('a', 2));
    await cache.get('b', loadOf('b', 2));
    expect(cache.cachedBytes).toBe(48);
    await cache.get('a', loadOf('a', 2)); // now the most recent: b is the least
    await cache.get('c', loadOf('c', 2));
    expect(cache.cachedBytes).toBe(48);
    await cache.get('a', loadOf('a', 2));
    await cache.get('c', loadOf('c', 2));
    expect(loads).toEqual(['a', 'b', 'c']);
    await cache.get('b', loadOf('b', 2));
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
    // Writes count too: a scope grown past the bound alone stays, the others go.
    for (let i = 0; i < 6; i++) cache.added('b', row(`more${i}`), axis(0));
    expect(cache.cachedBytes).toBe(8 * 12);
    await cache.get('b', loadOf('b', 2));
    await cache.get('a', loadOf('a', 2));
    expect(loads).toEqual(['a', 'b', 'c', 'b', 'a']);
    cache.cleared('');
    expect(cache.cachedBytes).toBe(0);
  });
});
