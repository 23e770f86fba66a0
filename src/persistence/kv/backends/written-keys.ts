import type { KvOp } from './kv-backend.js';

/**
 * What a backend holds at the keys its store reads back key by key (chosen by prefix), as it
 * last wrote or read them, for a bounded number of keys (the key noted first is dropped first:
 * a dropped key is read again, nothing else). A backend that alone holds its database (LevelDB's
 * folder lock: one process, one open backend in it) sees every write to it, its store's and any
 * other (a tool's, a test's), so a key noted here holds exactly these bytes (`undefined`:
 * absent). A read of keys that are all noted is answered with them instead of a native read, the
 * same bytes a read would return, which the store checks as it checks any read (seals,
 * versions); a read with a key not noted goes to the database whole, so its values come from one
 * moment.
 */
export class WrittenKeys {
  private readonly values = new Map<string, string | undefined>();

  constructor(
    private readonly prefixes: readonly string[],
    private readonly capacity: number,
  ) {}

  /** Notes a batch once it is written: each op on a key of the prefixes, in order. */
  written(ops: readonly KvOp[]): void {
    for (const op of ops) this.note(op.key, op.type === 'put' ? op.value : undefined);
    this.bound();
  }

  /**
   * Notes what a read found, when no write ended while it ran (a write still running then notes
   * its own keys when it ends, over what the read found).
   */
  found(keys: readonly string[], values: readonly (string | undefined)[]): void {
    keys.forEach((key, i) => this.note(key, values[i]));
    this.bound();
  }

  /** Notes `value` at `key` if the key is read back; the map's order is that of first notes. */
  private note(key: string, value: string | undefined): void {
    for (const prefix of this.prefixes) {
      if (key.startsWith(prefix)) {
        this.values.set(key, value);
        return;
      }
    }
  }

  private bound(): void {
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
