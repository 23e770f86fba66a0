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
  /** Drained into a save that has not finished yet: still part of the view. */
  private savingItems: Item[] = [];
  private savingJournal: JournalEntry[] = [];
  /**
   * Runs started by this process (fresh ids): the store holds no journal entry of theirs but
   * those committed here, listed in `committedSteps`, so looking up the rest needs no read.
   */
  private readonly freshRuns = new Set<string>();
  private readonly committedSteps = new Set<string>();

  constructor(
    private readonly store: SessionStore,
    private readonly key: SessionKey,
    committed: Item[],
  ) {
    this.items = committed;
  }

  /** Number of items, committed and pending. */
  get length(): number {
    return this.items.length + this.savingItems.length + this.pendingItems.length;
  }

  /** Items from `from` to the end, committed and pending, oldest first. */
  view(from = 0): Item[] {
    const all =
      this.savingItems.length || this.pendingItems.length
        ? this.items.concat(this.savingItems, this.pendingItems)
        : this.items;
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

  /** Notes a run started here with a new id: its steps are not in the store's journal. */
  startedRun(runId: string): void {
    this.freshRuns.add(runId);
  }

  /** A step's journaled result: pending ones first, then the store. */
  async find(runId: string, step: number): Promise<JournalEntry | undefined> {
    const match = (e: JournalEntry) => e.runId === runId && e.step === step;
    const pending = this.pendingJournal.find(match) ?? this.savingJournal.find(match);
    if (pending) return pending;
    if (this.freshRuns.has(runId) && !this.committedSteps.has(`${step}:${runId}`)) return undefined;
    return this.store.readJournal(this.key, runId, step);
  }

  /** Hands pending writes to a commit. */
  drain(): { items: Item[]; journal: JournalEntry[] } {
    const out = { items: this.pendingItems, journal: this.pendingJournal };
    this.savingItems = this.savingItems.concat(out.items);
    this.savingJournal = this.savingJournal.concat(out.journal);
    this.pendingItems = [];
    this.pendingJournal = [];
    return out;
  }

  /** The committed items (the live array; callers must not modify it). */
  committedItems(): Item[] {
    return this.items;
  }

  /** Marks drained items (and the journal drained with them) as committed. */
  committed(items: Item[], journal: JournalEntry[] = []): void {
    this.items.push(...items);
    this.savingItems = this.savingItems.slice(items.length);
    this.savingJournal = this.savingJournal.filter((e) => !journal.includes(e));
    for (const e of journal)
      if (this.freshRuns.has(e.runId)) this.committedSteps.add(`${e.step}:${e.runId}`);
  }

  /** Puts drained writes back in front after a failed save, so nothing is silently lost. */
  restore(drained: { items: Item[]; journal: JournalEntry[] }): void {
    this.savingItems = this.savingItems.slice(drained.items.length);
    this.savingJournal = this.savingJournal.filter((e) => !drained.journal.includes(e));
    this.pendingItems = drained.items.concat(this.pendingItems);
    this.pendingJournal = drained.journal.concat(this.pendingJournal);
  }
}
