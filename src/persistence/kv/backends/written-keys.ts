import type { KvOp } from './kv-backend.js';

/**
 * What a backend last wrote at the keys its store reads back key by key (chosen by prefix), for
 * the keys written most recently (bounded: the oldest is dropped first). A backend that alone
 * holds its database (LevelDB's folder lock: one process, one open backend in it) sees every
 * write to it, its store's and any other (a tool's, a test's), so a key noted here holds exactly
 * these bytes (`undefined`: deleted). A read of keys that are all noted is answered with them
 * instead of a native read, the same bytes a read would return, which the store checks as it
 * checks any read (seals, versions); a read with a key not noted goes to the database whole, so
 * its values come from one moment.
 */
export class WrittenKeys {
  private readonly values = new Map<string, string | undefined>();

  constructor(
    private readonly prefixes: readonly string[],
    private readonly capacity: number,
  ) {}

  /** Notes a batch once it is written: each op on a key of the prefixes, in order. */
  written(ops: readonly KvOp[]): void {
    for (const op of ops) {
      if (!this.prefixes.some((prefix) => op.key.startsWith(prefix))) continue;
      this.values.delete(op.key);
      this.values.set(op.key, op.type === 'put' ? op.value : undefined);
    }
    for (const oldest of this.values.keys()) {
      if (this.values.size <= this.capacity) break;
      this.values.delete(oldest);
    }
  }

  /** Forgets the keys of a batch whose write failed: what it left there is not known. */
  forget(ops: readonly KvOp[]): void {
    for (const op of ops) this.values.delete(op.key);
  }

  /** The values of `keys`, when every one is noted; else `undefined` (read them all). */
  read(keys: readonly string[]): (string | undefined)[] | undefined {
    const found: (string | undefined)[] = [];
    for (const key of keys) {
      const value = this.values.get(key);
      if (value === undefined && !this.values.has(key)) return undefined;
      found.push(value);
    }
    return found;
  }

  clear(): void {
    this.values.clear();
  }
}
