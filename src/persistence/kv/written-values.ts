import type { SessionRecord } from '../session-store.js';
import type { RecordBase } from './record-changes.js';
import { orderKeys } from './order-index.js';

/**
 * The last value a store wrote at each key, with what it stands for, for the keys written most
 * recently (bounded: the oldest is dropped first). A read that finds exactly those bytes at the
 * key needs no decode: the store wrote them itself, from a value it had checked. Any other bytes
 * (changed by another writer, damaged, or an entry dropped) are decoded and checked as usual.
 */
export class WrittenValues<T> {
  private readonly entries = new Map<string, { raw: string; value: T }>();

  constructor(private readonly capacity: number) {}

  /** What `raw` stands for, if it is what this store last wrote at `key`. */
  get(key: string, raw: string | undefined): T | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.raw === raw ? entry.value : undefined;
  }

  /** What this store last wrote at `key`, if it still remembers it (not checked against a read). */
  peek(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  /** Notes that `raw` (standing for `value`) is now stored at `key`. */
  set(key: string, raw: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { raw, value });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/** What a store remembers of a session record it wrote, for the next save's version check. */
export interface WrittenRecord {
  version: number;
  historyLength: number;
  approvalDeadline: number | undefined;
  status: SessionRecord['status'];
  /** Its list-order index keys (`order-index.ts`). */
  order: readonly string[];
  /** The sub-agent run parts stored with it (raw, by run id). */
  parts: ReadonlyMap<string, string>;
  /** The value at its changes key (`undefined`: none, the record key holds it whole). */
  changes: string | undefined;
  /** The whole envelope at its record key, if this store wrote it (`record-changes.ts`). */
  base: RecordBase | undefined;
  /** The listing entry this store wrote with it (`undefined`: not known). */
  listing: string | undefined;
  /** The record this store handed out for these values (none with sub-run parts). */
  handed: SessionRecord | undefined;
}

export function writtenRecord(
  record: SessionRecord,
  parts: ReadonlyMap<string, string>,
  stored: Pick<WrittenRecord, 'changes' | 'base' | 'listing' | 'handed'>,
): WrittenRecord {
  const { version, historyLength, approvalDeadline, status } = record;
  const { changes, base, listing, handed } = stored;
  return {
    version,
    historyLength,
    approvalDeadline,
    status,
    order: orderKeys(record, record),
    parts,
    changes,
    base,
    listing,
    handed,
  };
}
