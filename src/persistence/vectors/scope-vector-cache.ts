import { ScopeVectors, type VectorRow } from './scope-vectors.js';

/** A store's write, as the cached vectors of one scope and model follow it. */
type Change =
  | { type: 'add'; row: VectorRow; vector: Float32Array }
  | { type: 'remove'; ids: readonly string[] }
  | { type: 'clear' };

interface Entry {
  /** Settles with the scope's vectors once loaded (and the changes since replayed). */
  vectors?: Promise<ScopeVectors> | undefined;
  /** The changes written while it loads, replayed in order once it has; none once loaded. */
  log: Change[] | undefined;
  loaded: ScopeVectors | undefined;
}

/**
 * The vectors of the scopes a store searched, one `ScopeVectors` per (user, resource, model)
 * under a key the store names, each loaded from the store on its first search and kept current
 * by the store's own writes (a store one process holds sees every write). A write that lands
 * while a scope loads is logged and replayed on the loaded rows in order: adds and removes are
 * by id, so replaying one the load already saw leaves the same rows, whatever moment the load's
 * read saw the store at.
 */
export class ScopeVectorCache {
  private readonly scopes = new Map<string, Entry>();

  /** The vectors of the scope `key`, loaded by `load` if not cached (one load at a time). */
  async get(key: string, load: () => Promise<ScopeVectors>): Promise<ScopeVectors> {
    const cached = this.scopes.get(key);
    if (cached) return cached.loaded ?? cached.vectors!;
    // Set before the load reads anything: every write from here on is logged for it.
    const entry: Entry = { log: [], loaded: undefined };
    this.scopes.set(key, entry);
    const vectors = load().then(
      (vectors) => {
        let current = vectors;
        for (const change of entry.log ?? []) current = applied(current, change);
        entry.log = undefined;
        entry.loaded = current;
        return current;
      },
      (error: unknown) => {
        if (this.scopes.get(key) === entry) this.scopes.delete(key);
        throw error;
      },
    );
    entry.vectors = vectors;
    return vectors;
  }

  /** A memory written to the scope `key`. */
  added(key: string, row: VectorRow, vector: Float32Array): void {
    this.change(key, { type: 'add', row, vector });
  }

  /** Memories removed from the scope `key`. */
  removed(key: string, ids: readonly string[]): void {
    if (ids.length) this.change(key, { type: 'remove', ids });
  }

  /** Every scope whose key starts with `prefix` emptied (a forget). */
  cleared(prefix: string): void {
    for (const key of this.scopes.keys()) {
      if (key.startsWith(prefix)) this.change(key, { type: 'clear' });
    }
  }

  private change(key: string, change: Change): void {
    const entry = this.scopes.get(key);
    if (!entry) return; // not cached: its first search loads what the store holds
    if (entry.log) {
      entry.log.push(change);
      return;
    }
    if (change.type === 'clear') {
      // Loaded and now empty: the next search loads it again (finding nothing, or what came since).
      this.scopes.delete(key);
      return;
    }
    entry.loaded = applied(entry.loaded!, change);
  }
}

/** `vectors` after `change` (the same object, but for a clear). */
function applied(vectors: ScopeVectors, change: Change): ScopeVectors {
  if (change.type === 'clear') return new ScopeVectors(vectors.dimensions);
  if (change.type === 'remove') vectors.remove(change.ids);
  else if (change.vector.length === vectors.dimensions) vectors.add(change.row, change.vector);
  return vectors;
}
