import type { Memory } from '../memory-store.js';
import { ScopeVectors } from '../vectors/scope-vectors.js';

/**
 * One searched scope of the exact search (PostgreSQL without pgvector): the vectors of one
 * owner, resource (or all of the owner's) and model, with their memories, as of the owner's
 * write number `seq` and delete count `epoch` (`agentstate_memory_owners`).
 */
export interface CachedScope {
  readonly vectors: ScopeVectors;
  readonly memories: Map<string, Memory>;
  seq: number;
  epoch: number;
}

/**
 * The scopes a store searched, most recently used last, within a bound of floats (4 bytes
 * each): past it, the least recently used scopes are dropped (a search of one builds it again).
 */
export class MemoryScopeCache {
  private readonly scopes = new Map<string, CachedScope>();
  private floats = 0;

  constructor(private readonly maxFloats: number) {}

  /** The cached scope of `key`, marked as used; `undefined` when it is not cached. */
  get(key: string): CachedScope | undefined {
    const scope = this.scopes.get(key);
    if (scope === undefined) return undefined;
    this.scopes.delete(key);
    this.scopes.set(key, scope);
    return scope;
  }

  /** A new empty scope for `key` (replacing the one cached), as of `epoch`. */
  fresh(key: string, dimensions: number, epoch: number): CachedScope {
    this.drop(key);
    const scope: CachedScope = {
      vectors: new ScopeVectors(dimensions),
      memories: new Map(),
      seq: 0,
      epoch,
    };
    this.scopes.set(key, scope);
    return scope;
  }

  /** Counts the rows a scope took, then drops the least recently used past the bound. */
  grew(key: string, rows: number, dimensions: number): void {
    this.floats += rows * dimensions;
    for (const oldest of this.scopes.keys()) {
      if (this.floats <= this.maxFloats || oldest === key) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const scope = this.scopes.get(key);
    if (scope === undefined) return;
    this.floats -= scope.vectors.size * scope.vectors.dimensions;
    this.scopes.delete(key);
  }
}
