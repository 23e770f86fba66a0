import type { Item } from '../items/item.js';
import { sessionPart } from '../persistence/session-keys.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { SessionHost } from './session-host.js';

/** How many recently used sessions a runtime keeps loaded by default (`cachedSessions`). */
export const DEFAULT_CACHED_SESSIONS = 1000;

/** A session host kept live at rest, with the agent it was bound for. */
interface LiveHost {
  host: SessionHost;
  /** The agent (an `Agent` or `AgentSession`) whose action left it: only the same one takes it. */
  agent: object;
}

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
 *
 * It also keeps the live host of the last `liveCapacity` sessions (within those cached), at
 * rest as its last action left it, so their next action does not restore the session actor:
 * a host is handed out only for the record it saved and only once the store returned exactly
 * that record; a different record (another writer's save), a failed action, a delete or an
 * eviction stops it.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** The live hosts at rest, least recently used first (their keys are in `entries`). */
  private readonly hosts = new Map<string, LiveHost>();

  constructor(
    private readonly capacity = DEFAULT_CACHED_SESSIONS,
    private readonly liveCapacity = capacity,
  ) {}

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
    if (this.hosts.get(id)?.host.committer.record !== record) this.dropHost(id);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.drop(oldest);
    }
  }

  /** Drops a session (deleted, purged, or its action failed: the next one reads it afresh). */
  forget(key: SessionKey): void {
    this.drop(cacheKey(key));
  }

  /**
   * Keeps a host its action closed at rest (`SessionHost.close(true)`) for the session's next
   * action, if the cache holds the record it saved; false (the caller stops it) otherwise.
   */
  keep(key: SessionKey, host: SessionHost, agent: object): boolean {
    const id = cacheKey(key);
    if (this.liveCapacity === 0 || this.entries.get(id)?.record !== host.committer.record) {
      return false;
    }
    this.dropHost(id);
    this.hosts.set(id, { host, agent });
    if (this.hosts.size > this.liveCapacity) {
      const oldest = this.hosts.keys().next().value;
      if (oldest !== undefined) this.dropHost(oldest);
    }
    return true;
  }

  /**
   * The live host of a session, taken out of the cache for one action, when the store returned
   * exactly the record it saved (`record`, the one handed to `loadForUpdate` as `known`) and
   * `agent` is the one it was kept for; otherwise the host (if any) is stopped and none given.
   */
  take(key: SessionKey, record: SessionRecord, agent: object): SessionHost | undefined {
    const id = cacheKey(key);
    const live = this.hosts.get(id);
    if (!live) return undefined;
    this.hosts.delete(id);
    const stored = this.entries.get(id)?.record;
    if (stored === record && live.host.committer.record === record && live.agent === agent) {
      return live.host;
    }
    live.host.stop();
    return undefined;
  }

  private drop(id: string): void {
    this.entries.delete(id);
    this.dropHost(id);
  }

  private dropHost(id: string): void {
    const live = this.hosts.get(id);
    if (!live) return;
    this.hosts.delete(id);
    live.host.stop();
  }
}

/** The cache's key of a session: the store's unambiguous (user, session) key part. */
export function cacheKey(key: SessionKey): string {
  return sessionPart(key);
}
