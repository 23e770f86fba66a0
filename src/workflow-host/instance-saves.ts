import type { JournalEntry } from '../persistence/session-store.js';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The saves of one instance, one at a time: a change marks it dirty and a save follows (in a
 * microtask, so one macrostep's changes go in one save); what changed meanwhile goes in the
 * next. The journal entries and inbox entries taken wait here for the save that carries them;
 * a failed save puts them back and stops the instance (`onFailed`).
 */
export class InstanceSaves {
  /** Journal entries the next save writes. */
  readonly journal: JournalEntry[] = [];
  /** Inbox entries the next save removes (taken: applied or refused). */
  readonly dequeued: string[] = [];
  private dirty = false;
  private saving: Promise<void> | undefined;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly write: (journal: JournalEntry[], dequeued: string[]) => Promise<void>,
    private readonly onSaved: () => void,
    private readonly onFailed: (error: unknown) => void,
    private readonly stopped: () => boolean,
  ) {}

  /** Whether a change waits to be saved or a save is under way. */
  get pending(): boolean {
    return this.dirty || this.saving !== undefined;
  }

  /** Asks for a save of what changed. */
  markDirty(): void {
    if (this.stopped()) return;
    this.dirty = true;
    if (!this.saving) this.saving = Promise.resolve().then(() => this.loop());
  }

  /** Resolves after the next save (of everything changed so far) lands. */
  saved(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Adds a waiter settled by the next save (a command's caller); rejected once stopped. */
  settleWithNext(waiter: Waiter): void {
    if (this.stopped())
      waiter.reject(new Error('the workflow instance left memory before its save'));
    else this.waiters.push(waiter);
  }

  /** Resolves once nothing waits to be saved. */
  async flushed(): Promise<void> {
    while (this.saving) await this.saving;
  }

  /** Rejects every waiter (the instance stopped). */
  rejectAll(error: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private async loop(): Promise<void> {
    try {
      while (this.dirty && !this.stopped()) {
        this.dirty = false;
        const waiters = this.waiters.splice(0);
        const journal = this.journal.splice(0);
        const dequeued = this.dequeued.splice(0);
        try {
          await this.write(journal, dequeued);
        } catch (error) {
          // Not saved: what it held goes back, in order.
          this.journal.unshift(...journal);
          this.dequeued.unshift(...dequeued);
          for (const waiter of waiters) waiter.reject(error);
          this.onFailed(error);
          return;
        }
        this.onSaved();
        for (const waiter of waiters) waiter.resolve();
      }
    } finally {
      this.saving = undefined;
    }
  }
}
