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
  /** The bytes of its vectors counted in the cache's total (0 while it loads). */
  bytes: number;
}

/**
 * How many bytes of vectors a cache keeps by default: 1 GiB, a scope of 100,000 memories of
 * 1,536 dimensions (614 MB) with room for others.
 */
export const DEFAULT_CACHE_BYTES = 1024 * 1024 * 1024;

/** The bytes a scope's vectors take (its rows; the array's spare room left out). */
const bytesOf = (vectors: ScopeVectors): number => vectors.size * vectors.dimensions * 4;

/**
 * The vectors of the scopes a store searched, one `ScopeVectors` per (user, resource, model)
 * under a key the store names, each loaded from the store on its first search and kept current
 * by the store's own writes (a store one process holds sees every write). A write that lands
 * while a scope loads is logged and replayed on the loaded rows in order: adds and removes are
 * by id, so replaying one the load already saw leaves the same rows, whatever moment the load's
 * read saw the store at. Past `maxBytes` of vectors, the scopes searched least recently are
 * dropped (the next search of one loads it again); the scope just searched always stays.
 */
export class ScopeVectorCache {
  /** In the order they were last searched, the least recent first. */
  private readonly scopes = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_CACHE_BYTES) {}

  /** The vectors of the scope `key`, loaded by `load` if not cached (one load at a time). */
  async get(key: string, load: () => Promise<ScopeVectors>): Promise<ScopeVectors> {
    const cached = this.scopes.get(key);
    if (cached) {
      // Searched now: the most recent.
      this.scopes.delete(key);
      this.scopes.set(key, cached);
      return cached.loaded ?? cached.vectors!;
    }
    // Set before the load reads anything: every write from here on is logged for it.
    const entry: Entry = { log: [], loaded: undefined, bytes: 0 };
    this.scopes.set(key, entry);
    const vectors = load().then(
      (vectors) => {
        let current = vectors;
        for (const change of entry.log ?? []) current = applied(current, change);
        entry.log = undefined;
        entry.loaded = current;
        if (this.scopes.get(key) === entry) {
          this.counted(entry);
          this.evict(entry);
        }
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
    for (const key of [...this.scopes.keys()]) {
      if (key.startsWith(prefix)) this.change(key, { type: 'clear' });
    }
  }

  /** The bytes of the vectors cached now. */
  get cachedBytes(): number {
    return this.bytes;
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
      this.drop(key, entry);
      return;
    }
    entry.loaded = applied(entry.loaded!, change);
    this.counted(entry);
    this.evict(entry);
  }

  /** Counts `entry`'s vectors in the total as they are now. */
  private counted(entry: Entry): void {
    const bytes = bytesOf(entry.loaded!);
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  private drop(key: string, entry: Entry): void {
    this.scopes.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Drops the least recently searched loaded scopes, `kept` aside, until within the bound. */
  private evict(kept: Entry): void {
    if (this.bytes <= this.maxBytes) return;
    for (const [key, entry] of [...this.scopes]) {
      if (this.bytes <= this.maxBytes) return;
      if (entry !== kept && entry.loaded && !entry.log) this.drop(key, entry);
    }
  }
}

/**
 * `vectors` after `change` (the same object, but for a clear, or an add of another dimension to
 * a scope left empty: its model's memories all went, so the next may have any dimension).
 */
function applied(vectors: ScopeVectors, change: Change): ScopeVectors {
  if (change.type === 'clear') return new ScopeVectors(vectors.dimensions);
  if (change.type === 'remove') {
    vectors.remove(change.ids);
    return vectors;
  }
  const { row, vector } = change;
  const into =
    vector.length === vectors.dimensions || vectors.size > 0
      ? vectors
      : new ScopeVectors(vector.length);
  if (vector.length === into.dimensions) into.add(row, vector);
  return into;
}
