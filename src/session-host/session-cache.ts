import type { Item } from '../items/item.js';
import { sessionPart } from '../persistence/session-keys.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';

/** How many recently used sessions a runtime keeps loaded by default (`cachedSessions`). */
export const DEFAULT_CACHED_SESSIONS = 1000;

interface Entry {
  createdAt: number;
  /** The committed history, kept by reference: its owner only appends committed items. */
  items: Item[];
  /** The record as the store last returned it (checked, or saved by this runtime). */
  record: SessionRecord | undefined;
}

/**
 * What a runtime keeps of the sessions it used lately (at most `capacity`, the least recently
 * used dropped first): the record as the store returned it, and the committed history. Nothing
 * is served without the store: the record is handed back to `loadForUpdate` as `known`, and the
 * store returns it only while it still holds exactly that value (another writer's save is read
 * and checked as usual); history is read from where the cached part ends (it is append-only).
 * Keys are (user, session) pairs: one user's entry is never another's.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = DEFAULT_CACHED_SESSIONS) {}

  /** The record to hand the store as `known` (none if the session is not cached). */
  record(key: SessionKey): SessionRecord | undefined {
    return this.entries.get(cacheKey(key))?.record;
  }

  /** The committed items of `record`, as a fresh array the caller may append to. */
  async history(store: SessionStore, key: SessionKey, record: SessionRecord): Promise<Item[]> {
    const entry = this.entries.get(cacheKey(key));
    const usable =
      entry && entry.createdAt === record.createdAt && entry.items.length <= record.historyLength;
    const known = usable ? entry.items : [];
    const missing =
      known.length < record.historyLength
        ? await store.readHistory(key, known.length, record.historyLength)
        : [];
    const items = known.slice(0, record.historyLength).concat(missing);
    this.remember(key, record, items.slice());
    return items;
  }

  /**
   * Records a session's record (as the store returned it) and committed items, after a load
   * or a save. The array is kept by reference: its owner only ever appends committed items to
   * it, and `history` hands out copies.
   */
  remember(key: SessionKey, record: SessionRecord, items: Item[]): void {
    const id = cacheKey(key);
    this.entries.delete(id);
    this.entries.set(id, { createdAt: record.createdAt, items, record });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** Drops a session (deleted, purged, or its action failed: the next one reads it afresh). */
  forget(key: SessionKey): void {
    this.entries.delete(cacheKey(key));
  }
}

/** The cache's key of a session: the store's unambiguous (user, session) key part. */
export function cacheKey(key: SessionKey): string {
  return sessionPart(key);
}
