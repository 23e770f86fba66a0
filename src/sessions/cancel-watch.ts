import type { Clock } from '../core/clock.js';
import type { DecisionInbox, DecisionWatch } from '../persistence/decision-inbox.js';
import { cancelOf, type CancelDelivery, type LiveRunCancels } from '../persistence/run-cancels.js';
import type { SessionStore } from '../persistence/session-store.js';
import { storedRun } from '../runs/stored-run.js';

/** How many inbox submissions one read looks at. */
const PAGE = 100;

/** The first wait before watching again, while a dropped subscription cannot be had again. */
const RETRY_MS = 250;
/** The longest such wait (it doubles from `RETRY_MS` up to this). */
const MAX_RETRY_MS = 8_000;

/**
 * Listens, while a runtime executes runs on a store shared by processes, for the cancel
 * requests other processes record in the store's decision inbox (`agent.cancel`): on each
 * notification (of the store's one subscription), and at each renewal of the runtime's leases
 * (every third of their `ttlMs`, on its clock: the fallback when notifications are lost or
 * cannot be had), it reads the inbox,
 * cancels the runs it names that execute in this process and drops those requests (a request
 * applied is dropped once; one for a run executing elsewhere is left for that process; one made
 * on an earlier run of the session is dropped, unapplied). A subscription lost while runs
 * execute here (a server restart, a failover, its backend ended) is watched again at once, and
 * after `RETRY_MS`, doubling, while it cannot be had (the server still down); each new one
 * reads the inbox, so a request recorded while none listened is applied as it returns.
 */
export class CancelWatch {
  private running = 0;
  /** The subscription (resolves undefined if none could be had), kept idle between runs. */
  private opening: Promise<DecisionWatch | undefined> | undefined;
  /** The subscription once had. */
  private watch: DecisionWatch | undefined;
  /**
   * Whether the inbox may hold a request this has not read: its subscription is new (a
   * request recorded before it listened), a notification came while no run executed here, a
   * read failed, or its last read left a cancel request (another process's run, or a run here
   * that ended). Else a run's start reads nothing: its subscription, idle but listening since
   * that read, heard of every request recorded since.
   */
  private unread = true;
  /** The read under way. */
  private reading: Promise<void> | undefined;
  private again: CancelDelivery | undefined;
  /** Stops the wait before watching again, while one runs. */
  private retrying: AbortController | undefined;

  /** @param clock times the waits before watching again (the runtime's) */
  constructor(
    private readonly store: SessionStore & DecisionInbox,
    private readonly cancels: LiveRunCancels,
    private readonly clock: Clock,
  ) {}

  /**
   * A run started executing in this runtime. When the inbox may hold a request it has not read
   * (the runtime's first run, once its subscription is had; a notification came, or a request
   * was left, since its last read), it is read now, and this resolves once it is: the run waits
   * for it before it starts, so a cancel recorded before for the run it continues (paused, or
   * crashed) ends that run before it takes a step. Else undefined: nothing to wait for.
   */
  started(): Promise<void> | undefined {
    this.running += 1;
    if (!this.opening) return this.running > 1 ? this.read('poll') : this.open();
    if (this.running === 1) this.watch?.idle?.(false);
    if (!this.watch) return this.opening.then(noop); // read once had
    return this.unread ? this.read('poll') : undefined;
  }

  /**
   * A run of this runtime ended. After its last one the subscription stays, idle (it holds
   * nothing of the process, and ends after the store's linger or at its `close`); a store
   * whose watch cannot be idle has it closed, and this resolves once it is.
   */
  ended(): Promise<void> | undefined {
    this.running -= 1;
    if (this.running > 0) return undefined;
    this.retrying?.abort();
    this.retrying = undefined;
    if (this.watch) return this.rest(this.watch);
    return this.opening?.then(noop); // rests it once had
  }

  /**
   * Watches the inbox: the store's one subscription, shared with its scheduler and the other
   * runtimes on it (PostgreSQL: one LISTEN connection per store object). Lost, or not had, it
   * is tried again at the next poll, which reads meanwhile; lost while runs execute, it is
   * tried again at once (`attempt` counts the tries since, see `reconnect`).
   */
  private open(attempt?: number): Promise<void> {
    this.unread = true;
    const forget = (): undefined => {
      if (this.opening === opening) {
        this.opening = undefined;
        this.watch = undefined;
        this.unread = true;
      }
      return undefined;
    };
    const lost = (): void => {
      const had = this.opening === opening && this.watch !== undefined;
      forget();
      if (had) this.reconnect(0);
    };
    const opening = this.store
      .watchDecisions(
        () => this.heard(),
        lost, // lost (or its linger is over): watched again now if runs execute here
      )
      .then(
        async (watch) => {
          if (this.opening !== opening) {
            await watch.close().catch(noop); // lost meanwhile
            return undefined;
          }
          this.watch = watch;
          if (this.running > 0)
            await this.read('poll'); // a request recorded before
          else await this.rest(watch);
          return watch;
        },
        async () => {
          // No LISTEN (a transaction-mode pooler): the polls find every request, this run's
          // start reads once.
          forget();
          if (this.running > 0) await this.read('poll');
          if (attempt !== undefined) this.reconnect(attempt + 1);
          return undefined;
        },
      );
    this.opening = opening;
    return opening.then(noop);
  }

  /**
   * Watches again, while runs execute here and nothing is watched: at once (`attempt` 0, the
   * subscription was just lost), else after `RETRY_MS * 2 ** (attempt - 1)` (at most
   * `MAX_RETRY_MS`) on the runtime's clock.
   */
  private reconnect(attempt: number): void {
    if (this.running === 0 || this.opening) return;
    if (attempt === 0) {
      void this.open(0);
      return;
    }
    const stop = new AbortController();
    this.retrying?.abort();
    this.retrying = stop;
    const delay = Math.min(RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS);
    this.clock.sleepUntil(this.clock.now() + delay, stop.signal).then(() => {
      if (this.retrying === stop) this.retrying = undefined;
      if (this.running > 0 && !this.opening) void this.open(attempt);
    }, noop);
  }

  /** No run executes here: the subscription idles, or is closed if it cannot. */
  private rest(watch: DecisionWatch): Promise<void> | undefined {
    if (watch.idle) {
      watch.idle(true);
      return undefined;
    }
    this.opening = undefined;
    this.watch = undefined;
    this.unread = true;
    return watch.close().catch(noop);
  }

  /** A notification: read now if a run executes here, else at the next run's start. */
  private heard(): void {
    if (this.running > 0) void this.read('notification');
    else this.unread = true;
  }

  /** Reads the inbox now (the runtime calls it at each lease renewal: the polling fallback). */
  poll(): void {
    if (this.running === 0) return;
    if (!this.opening) void this.open();
    void this.read('poll');
  }

  /**
   * Reads the inbox once (again after a read under way, if something came meanwhile); resolves
   * once read (a read under way: once it and the read again after it are over).
   */
  private read(delivery: CancelDelivery): Promise<void> {
    if (this.reading) {
      this.again = this.again === 'notification' ? this.again : delivery;
      return this.reading;
    }
    return (this.reading = this.readInbox(delivery));
  }

  private async readInbox(delivery: CancelDelivery): Promise<void> {
    this.unread = false;
    try {
      const { submitted } = await this.store.submittedDecisions({ limit: PAGE });
      // A full page may hide more behind it.
      if (submitted.length >= PAGE) this.unread = true;
      for (const entry of submitted) {
        const cancel = cancelOf(entry.decisions);
        if (!cancel) continue;
        if (!this.cancels.has(entry.key)) {
          this.unread = true; // left for its process (or a later read here)
          continue;
        }
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
      this.unread = true;
    } finally {
      this.reading = undefined;
    }
    const again = this.again;
    this.again = undefined;
    if (again && this.running > 0) await this.read(again);
  }
}

const noop = (): void => undefined;
