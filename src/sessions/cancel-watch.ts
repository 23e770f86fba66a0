import type { DecisionInbox, DecisionWatch } from '../persistence/decision-inbox.js';
import { cancelOf, type CancelDelivery, type LiveRunCancels } from '../persistence/run-cancels.js';
import type { SessionStore } from '../persistence/session-store.js';
import { storedRun } from '../runs/stored-run.js';

/** How many inbox submissions one read looks at. */
const PAGE = 100;

/**
 * Listens, while a runtime executes runs on a store shared by processes, for the cancel
 * requests other processes record in the store's decision inbox (`agent.cancel`): on each
 * notification (of the store's one subscription), and at each renewal of the runtime's leases (every third of their `ttlMs`, on
 * its clock: the fallback when notifications are lost or cannot be had), it reads the inbox,
 * cancels the runs it names that execute in this process and drops those requests (a request
 * applied is dropped once; one for a run executing elsewhere is left for that process; one made
 * on an earlier run of the session is dropped, unapplied).
 */
export class CancelWatch {
  private running = 0;
  /** Bumped on each start and stop: a late subscription of an earlier one reads nothing. */
  private generation = 0;
  /** The subscription of the runs executing now (resolves undefined if none could be had). */
  private opening: Promise<DecisionWatch | undefined> | undefined;
  private reading = false;
  private again: CancelDelivery | undefined;

  constructor(
    private readonly store: SessionStore & DecisionInbox,
    private readonly cancels: LiveRunCancels,
  ) {}

  /** A run started executing in this runtime. */
  started(): void {
    this.running += 1;
    if (this.running === 1) this.open();
  }

  /** A run of this runtime ended; resolves once no subscription of the last one is left. */
  ended(): Promise<void> {
    this.running -= 1;
    return this.running === 0 ? this.close() : Promise.resolve();
  }

  /**
   * Watches the inbox: the store's one subscription, shared with its scheduler and the other
   * runtimes on it (PostgreSQL: one LISTEN connection per store object). Lost, or not had, it
   * is tried again at the next poll, which reads meanwhile.
   */
  private open(): void {
    const generation = ++this.generation;
    const forget = (): undefined => {
      if (this.opening === opening) this.opening = undefined;
      return undefined;
    };
    const opening = this.store
      .watchDecisions(
        () => void this.read('notification'),
        forget, // lost: the poll reads on, and watches again
      )
      .then(
        (watch) => {
          if (this.generation === generation) void this.read('poll'); // a request recorded before
          return watch;
        },
        forget, // no LISTEN (a transaction-mode pooler): the poll finds every request
      );
    this.opening = opening;
  }

  private async close(): Promise<void> {
    this.generation += 1;
    const opening = this.opening;
    this.opening = undefined;
    const watch = await opening;
    await watch?.close().catch(() => undefined);
  }

  /** Reads the inbox now (the runtime calls it at each lease renewal: the polling fallback). */
  poll(): void {
    if (this.running === 0) return;
    if (!this.opening) this.open();
    void this.read('poll');
  }

  /** Reads the inbox once (again after a read under way, if something came meanwhile). */
  private async read(delivery: CancelDelivery): Promise<void> {
    if (this.reading) {
      this.again = this.again === 'notification' ? this.again : delivery;
      return;
    }
    this.reading = true;
    try {
      const { submitted } = await this.store.submittedDecisions({ limit: PAGE });
      for (const entry of submitted) {
        const cancel = cancelOf(entry.decisions);
        if (!cancel || !this.cancels.has(entry.key)) continue;
        // Made on the run stored then: a later run of the session is not cancelled by it.
        const record = await this.store.load(entry.key);
        const stored = storedRun<{ context?: { runId?: string } }>(record.snapshot);
        if (stored?.context?.runId === entry.runId) {
          void this.cancels.cancel(entry.key, { by: cancel.by, delivery });
        }
        await this.store.dropDecisions(entry);
      }
    } catch {
      // The store is unreachable: the next notification or poll reads again.
    } finally {
      this.reading = false;
    }
    const again = this.again;
    this.again = undefined;
    if (again && this.running > 0) await this.read(again);
  }
}
