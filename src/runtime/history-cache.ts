import type { Item } from '../items/item.js';
import { sessionPart } from '../persistence/session-keys.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';

interface Entry {
  createdAt: number;
  items: Item[];
}

/**
 * Committed history of recently used sessions, so a message to a long conversation reads
 * only the items it has not seen (history is append-only) instead of the whole log.
 */
export class HistoryCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 1000) {}

  /** The committed items of `record`, as a fresh array the caller may append to. */
  async load(store: SessionStore, key: SessionKey, record: SessionRecord): Promise<Item[]> {
    const id = cacheKey(key);
    const entry = this.entries.get(id);
    const usable =
      entry && entry.createdAt === record.createdAt && entry.items.length <= record.historyLength;
    const known = usable ? entry.items : [];
    const missing =
      known.length < record.historyLength
        ? await store.readHistory(key, known.length, record.historyLength)
        : [];
    const items = known.slice(0, record.historyLength).concat(missing);
    this.remember(id, record.createdAt, items.slice());
    return items;
  }

  /**
   * Records the committed items of a session after a save. The array is kept by reference:
   * its owner only ever appends committed items to it, and `load` hands out copies.
   */
  remember(id: string, createdAt: number, items: Item[]): void {
    this.entries.delete(id);
    this.entries.set(id, { createdAt, items });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  forget(key: SessionKey): void {
    this.entries.delete(cacheKey(key));
  }
}

/** The cache's key of a session: the store's unambiguous (user, session) key part. */
export function cacheKey(key: SessionKey): string {
  return sessionPart(key);
}
