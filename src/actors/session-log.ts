import type { Item } from '../items/item.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';

/**
 * The in-process view of one session's history and journal: what is committed plus what the
 * running steps produced since the last commit. Steps `record` their result here; the
 * committer `drain`s it into the next atomic save, so a step result and the snapshot that
 * moves past it land together (invariant 1).
 */
export class SessionLog {
  private readonly items: Item[];
  private pendingItems: Item[] = [];
  private pendingJournal: JournalEntry[] = [];

  constructor(
    private readonly store: SessionStore,
    private readonly key: SessionKey,
    committed: Item[],
  ) {
    this.items = committed;
  }

  /** Number of items, committed and pending. */
  get length(): number {
    return this.items.length + this.pendingItems.length;
  }

  /** Items from `from` to the end, committed and pending, oldest first. */
  view(from = 0): Item[] {
    const all = this.pendingItems.length ? this.items.concat(this.pendingItems) : this.items;
    return from === 0 ? all.slice() : all.slice(from);
  }

  /** Appends items that belong to no step (the user's input). */
  append(items: Item[]): void {
    this.pendingItems.push(...items);
  }

  /** Records a step's result and the items it adds to the conversation. */
  record(entry: JournalEntry, items: Item[] = []): void {
    this.pendingJournal.push(entry);
    this.pendingItems.push(...items);
  }

  /** A step's journaled result: pending ones first, then the store. */
  async find(runId: string, step: number): Promise<JournalEntry | undefined> {
    const pending = this.pendingJournal.find((e) => e.runId === runId && e.step === step);
    return pending ?? (await this.store.readJournal(this.key, runId, step));
  }

  /** Hands pending writes to a commit. */
  drain(): { items: Item[]; journal: JournalEntry[] } {
    const out = { items: this.pendingItems, journal: this.pendingJournal };
    this.pendingItems = [];
    this.pendingJournal = [];
    return out;
  }

  /** The committed items (the live array; callers must not modify it). */
  committedItems(): Item[] {
    return this.items;
  }

  /** Marks drained items as committed. */
  committed(items: Item[]): void {
    this.items.push(...items);
  }

  /** Puts drained writes back in front after a failed save, so nothing is silently lost. */
  restore(drained: { items: Item[]; journal: JournalEntry[] }): void {
    this.pendingItems = drained.items.concat(this.pendingItems);
    this.pendingJournal = drained.journal.concat(this.pendingJournal);
  }
}
