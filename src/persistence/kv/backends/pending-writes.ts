import type { KvRange } from '../../key-range.js';
import { getAll, type KvOp, type KvReader } from './kv-backend.js';

/** Whether `key` lies in `range` (`gte <= key < lt`). */
const inRange = (key: string, range: KvRange): boolean => key >= range.gte && key < range.lt;

/**
 * The ops of a group of writes not yet written, read over the backend: what a check reads
 * here is the store as it will be once the ops added so far are written, so each check of a
 * group sees the writes of those before it. A key put holds its value; a key deleted reads as
 * absent and leaves the ranges. Keys compare as JavaScript strings, which matches LevelDB's
 * byte order for the ASCII keys the session stores write.
 */
export class PendingWrites implements KvReader {
  /**
   * Each key written so far whose kind (its first character) a read asked for, with its value
   * (`undefined`: deleted): indexed from `ops` when a read needs it (`index`), so a group nobody
   * reads through (a lone write) builds none, and the keys no check reads back (history items,
   * journal entries, audit entries) are never indexed.
   */
  private readonly pending = new Map<string, string | undefined>();
  /** The kinds of key indexed: the first characters of the keys read so far. */
  private readonly kinds = new Set<number>();
  /** How many of `ops` `pending` has seen. */
  private indexed = 0;
  /** Every op added, in order: the group's batch. */
  readonly ops: KvOp[] = [];
  /** UTF-16 code units of every key and value put (bytes, for the ASCII-heavy records). */
  private units = 0;

  constructor(private readonly backend: KvReader) {}

  /** Adds a check's ops to the group. */
  add(ops: readonly KvOp[]): void {
    for (const op of ops) {
      this.ops.push(op);
      this.units += op.key.length + (op.type === 'put' ? op.value.length : 0);
    }
  }

  /** `pending` with every op added so far on a key of the kinds of `keys`, in order. */
  private index(keys: readonly string[]): Map<string, string | undefined> {
    for (const key of keys) {
      const kind = key.charCodeAt(0);
      if (this.kinds.has(kind)) continue;
      this.kinds.add(kind);
      // A kind read for the first time: the ops already seen, of that kind, in order.
      for (let i = 0; i < this.indexed; i++) this.note(this.ops[i]!, kind);
    }
    for (; this.indexed < this.ops.length; this.indexed++) this.note(this.ops[this.indexed]!);
    return this.pending;
  }

  /** Indexes `op` if it is of an indexed kind (of `kind` only, when given). */
  private note(op: KvOp, kind?: number): void {
    const of = op.key.charCodeAt(0);
    if (kind === undefined ? !this.kinds.has(of) : of !== kind) return;
    // A later op on a key wins.
    this.pending.set(op.key, op.type === 'put' ? op.value : undefined);
  }

  /** The size of the group's batch so far. */
  size(): { ops: number; units: number } {
    return { ops: this.ops.length, units: this.units };
  }

  async get(key: string): Promise<string | undefined> {
    const pending = this.index([key]);
    return pending.has(key) ? pending.get(key) : this.backend.get(key);
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const pending = this.index(keys);
    const missing = keys.filter((key) => !pending.has(key));
    return this.merged(keys, missing.length ? await getAll(this.backend, missing) : []);
  }

  getManySync(keys: string[]): (string | undefined)[] | undefined {
    const pending = this.index(keys);
    const missing = keys.filter((key) => !pending.has(key));
    if (!missing.length) return this.merged(keys, []);
    const read = this.backend.getManySync?.(missing);
    return read && this.merged(keys, read);
  }

  async *keys(range: KvRange): AsyncIterable<string> {
    // Every op of the range (a later one on a key wins), whatever kinds are indexed.
    const inRangeOps = new Map<string, string | undefined>();
    for (const op of this.ops) {
      if (inRange(op.key, range)) inRangeOps.set(op.key, op.type === 'put' ? op.value : undefined);
    }
    const touched = [...inRangeOps];
    if (!touched.length) {
      yield* this.backend.keys(range);
      return;
    }
    // A deleted key may hide one stored key of the range each: read that many more.
    const deleted = touched.filter(([, value]) => value === undefined).length;
    const limit = range.limit === undefined ? undefined : range.limit + deleted;
    const found = new Set<string>();
    for await (const key of this.backend.keys({ ...range, limit })) found.add(key);
    for (const [key, value] of touched) {
      if (value === undefined) found.delete(key);
      else found.add(key);
    }
    const sorted = [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (range.reverse) sorted.reverse();
    yield* range.limit === undefined ? sorted : sorted.slice(0, Math.max(0, range.limit));
  }

  /** `keys`' values: pending ones from the group, the others (`missing`, in order) as read. */
  private merged(
    keys: readonly string[],
    read: readonly (string | undefined)[],
  ): (string | undefined)[] {
    const pending = this.index(keys);
    let next = 0; // `missing` holds the keys not pending, in order
    return keys.map((key) => (pending.has(key) ? pending.get(key) : read[next++]));
  }
}
