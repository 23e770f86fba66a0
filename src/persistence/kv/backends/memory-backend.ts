import {
  KvWriteStats,
  type BatchOpHook,
  type KvBackend,
  type KvBackendOptions,
  type KvOp,
} from './kv-backend.js';
import { type KvRange } from '../../key-range.js';
import type { StoreStats } from '../../session-store.js';

/** Index of the first key in `sorted` that is `>= key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * {@link KvBackend} in memory: a Map for values plus a sorted key array for ranges. Batches
 * are checked in full (fault hook included) before any op is applied, so they are atomic.
 * Keys compare as JavaScript strings, which matches LevelDB's byte order for the ASCII keys
 * the session stores write.
 *
 * New keys wait in `added` until the next range read merges them into the sorted array, once:
 * inserting each one in order would move half the array per key (a store's sessions write
 * about ten new keys a message and read a range far less often).
 */
export class MemoryBackend implements KvBackend {
  private readonly values = new Map<string, string>();
  /** Every key but those in `added`, in order. */
  private readonly sortedKeys: string[] = [];
  /** The keys added since the last range read, in no order (none of them in `sortedKeys`). */
  private readonly added: string[] = [];
  private readonly onBatchOp: BatchOpHook | undefined;
  private readonly writeStats = new KvWriteStats();
  private closed = false;

  constructor(options: KvBackendOptions = {}) {
    this.onBatchOp = options.onBatchOp;
  }

  async get(key: string): Promise<string | undefined> {
    this.assertOpen();
    return this.values.get(key);
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    return this.getManySync(keys);
  }

  getManySync(keys: string[]): (string | undefined)[] {
    this.assertOpen();
    return keys.map((key) => this.values.get(key));
  }

  async write(ops: KvOp[]): Promise<void> {
    this.assertOpen();
    if (ops.length === 0) return;
    // Validate everything first: nothing below may throw, so the batch is all or nothing.
    ops.forEach((op, index) => {
      this.onBatchOp?.(index, op);
      if (typeof op.key !== 'string' || (op.type === 'put' && typeof op.value !== 'string')) {
        throw new TypeError(`Batch op ${index} needs string keys and values`);
      }
    });
    for (const op of ops) {
      if (op.type === 'put') this.put(op.key, op.value);
      else this.del(op.key);
    }
    this.writeStats.record(ops);
  }

  async *iterate(range: KvRange): AsyncIterable<[string, string]> {
    // Take the entries up front: a snapshot, unaffected by writes during iteration.
    const entries = this.keysOf(range).map((key): [string, string] => [
      key,
      this.values.get(key) as string,
    ]);
    for (const entry of entries) yield entry;
  }

  async *keys(range: KvRange): AsyncIterable<string> {
    for (const key of this.keysOf(range)) yield key;
  }

  stats(): StoreStats {
    return this.writeStats.snapshot();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The keys of a range, in iteration order, copied. */
  private keysOf(range: KvRange): string[] {
    this.assertOpen();
    this.mergeAdded();
    const start = lowerBound(this.sortedKeys, range.gte);
    const end = lowerBound(this.sortedKeys, range.lt);
    let keys = this.sortedKeys.slice(start, Math.max(start, end));
    if (range.reverse) keys.reverse();
    if (range.limit !== undefined) keys = keys.slice(0, Math.max(0, range.limit));
    return keys;
  }

  private put(key: string, value: string): void {
    const size = this.values.size;
    if (this.values.set(key, value).size > size) this.added.push(key); // a new key
  }

  private del(key: string): void {
    if (!this.values.delete(key)) return;
    const at = lowerBound(this.sortedKeys, key);
    if (this.sortedKeys[at] === key) this.sortedKeys.splice(at, 1);
    else this.added.splice(this.added.indexOf(key), 1);
  }

  /** Merges the keys added since the last range read into the sorted keys, in place. */
  private mergeAdded(): void {
    const added = this.added.sort();
    if (added.length === 0) return;
    const sorted = this.sortedKeys;
    let from = sorted.length - 1;
    let next = added.length - 1;
    for (const key of added) sorted.push(key); // the room the merge fills from the end
    for (let to = sorted.length - 1; next >= 0; to--) {
      sorted[to] =
        from >= 0 && (sorted[from] as string) > (added[next] as string)
          ? (sorted[from--] as string)
          : (added[next--] as string);
    }
    added.length = 0;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('MemoryBackend is closed');
  }
}
