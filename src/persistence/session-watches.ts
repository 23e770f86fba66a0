import type { SessionKey } from './session-store.js';

/**
 * A session's saves as they happen, for a reader that follows a run (`agent.attach`) while
 * another runtime executes it. Optional.
 */
export interface SessionWatches {
  /**
   * Calls `onChange` after each save of the session by a writer this store can hear (in this
   * process for a store one process holds; in every process sharing it for a shared store,
   * PostgreSQL by LISTEN/NOTIFY), until the returned function is called. A call may also come
   * without a save (a spurious one costs a read). `onLost` is called once if the store stops
   * hearing (a broken connection): the reader polls then, and may watch again. Resolves once
   * watching: every save after that is heard. Rejects if it cannot watch.
   */
  watchSession(
    key: SessionKey,
    onChange: () => void,
    onLost: (error: unknown) => void,
  ): Promise<() => Promise<void>>;
}

interface Watcher {
  onChange: () => void;
  onLost: (error: unknown) => void;
}

/**
 * The watchers of a store's sessions in this process, by an id of the session (its key part,
 * or a digest of it): a store calls `changed` after each save it hears of.
 */
export class SessionWatchers {
  private readonly byId = new Map<string, Set<Watcher>>();

  /** Adds a watcher of session `id`; the returned function removes it. */
  add(id: string, onChange: () => void, onLost: (error: unknown) => void): () => void {
    const watcher: Watcher = { onChange, onLost };
    let set = this.byId.get(id);
    if (!set) this.byId.set(id, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.byId.get(id) === set) this.byId.delete(id);
    };
  }

  /** Tells session `id`'s watchers it was saved (a watcher that throws is its own business). */
  changed(id: string): void {
    const set = this.byId.get(id);
    if (!set) return;
    for (const watcher of [...set]) {
      try {
        watcher.onChange();
      } catch {
        // A reader's callback must not break the store's write.
      }
    }
  }

  /** Tells every watcher the store stopped hearing, and forgets them all. */
  lost(error: unknown): void {
    const all = [...this.byId.values()].flatMap((set) => [...set]);
    this.byId.clear();
    for (const watcher of all) {
      try {
        watcher.onLost(error);
      } catch {
        // As above.
      }
    }
  }

  /** Whether any session is watched. */
  get watched(): boolean {
    return this.byId.size > 0;
  }
}
