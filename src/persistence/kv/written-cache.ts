import type { SessionRecord, UsageTotals } from '../session-store.js';
import type { StoredRecord } from './record-changes.js';
import { WrittenValues, writtenRecord, type WrittenRecord } from './written-values.js';

/** Sessions (and owners) whose last written record (totals) a cache remembers. */
const WRITTEN_CAPACITY = 1000;

/** What a record's stored values are, as the store read or wrote them. */
export type StoredValues = Omit<StoredRecord, 'base'> & { base?: StoredRecord['base'] };

/**
 * The KV store's performance caches, a layer the store consults between its logic and the
 * backend: what it last wrote (or read and checked) at a record or totals key, so that a read
 * finding exactly those bytes needs no decode, and a known record can be handed back as is. The
 * store is whole without it (`NO_CACHE`: every value read is decoded and checked); with it
 * (`WrittenCache`) it does the same work less often. Either passes the contract suite.
 */
export interface StoreCache {
  /** What the record stored at `recordKey` as `raw` stands for, if this cache knows those bytes. */
  record(recordKey: string, raw: string): WrittenRecord | undefined;
  /** The whole record last written at `recordKey`, unchecked (a save may write changes to it). */
  lastBase(recordKey: string): StoredRecord['base'] | undefined;
  /**
   * Notes what is stored for a record (after a write, or a read) and the record handed out for
   * it. A read knows no base and no listing entry: those written stay known while the stored
   * values are still the cache's.
   */
  remember(
    recordKey: string,
    stored: StoredValues,
    record: SessionRecord,
    parts: ReadonlyMap<string, string>,
    listing?: string,
  ): void;
  /** The owner's totals stored at `totalsKey` as `raw`, if this cache knows those bytes. */
  totals(totalsKey: string, raw: string | undefined): UsageTotals | undefined;
  /** Notes the owner's totals written at `totalsKey`. */
  rememberTotals(totalsKey: string, raw: string, value: UsageTotals): void;
}

/** No cache: the plain store, which decodes and checks every value it reads. */
export const NO_CACHE: StoreCache = {
  record: () => undefined,
  lastBase: () => undefined,
  remember: () => undefined,
  totals: () => undefined,
  rememberTotals: () => undefined,
};

/** The last record and totals values a store wrote or read per key (bounded, oldest dropped). */
export class WrittenCache implements StoreCache {
  /**
   * The last record value written per key: a save whose stored value is still exactly those
   * bytes needs no decode for its version check.
   */
  private readonly written = new WrittenValues<WrittenRecord>(WRITTEN_CAPACITY);
  /** The same for the owners' usage totals, which a save with usage adds to. */
  private readonly writtenTotals = new WrittenValues<UsageTotals>(WRITTEN_CAPACITY);

  record(recordKey: string, raw: string): WrittenRecord | undefined {
    return this.written.get(recordKey, raw);
  }

  lastBase(recordKey: string): StoredRecord['base'] | undefined {
    return this.written.peek(recordKey)?.base;
  }

  remember(
    recordKey: string,
    stored: StoredValues,
    record: SessionRecord,
    parts: ReadonlyMap<string, string>,
    listing?: string,
  ): void {
    const { raw, changes } = stored;
    const before = this.written.get(recordKey, raw);
    const kept = before?.changes === changes ? before : undefined;
    // A read of the same values keeps the record handed out first (the one a cache holds).
    const handed = parts.size === 0 ? (kept?.handed ?? record) : undefined; // parts: checked apart
    const base = stored.base ?? kept?.base;
    const known = { changes, base, listing: listing ?? kept?.listing, handed };
    this.written.set(recordKey, raw, writtenRecord(record, parts, known));
  }

  totals(totalsKey: string, raw: string | undefined): UsageTotals | undefined {
    return this.writtenTotals.get(totalsKey, raw);
  }

  rememberTotals(totalsKey: string, raw: string, value: UsageTotals): void {
    this.writtenTotals.set(totalsKey, raw, value);
  }
}
