import type { Clock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import type { ScheduleStore } from '../persistence/schedule-store.js';
import {
  ScheduleFiring,
  type ScheduleFiringOptions,
  type TickFirer,
} from '../schedules/schedule-firing.js';
import type { SessionKey } from '../persistence/session-store.js';
import type {
  DeadlineEntry,
  DueApprovals,
  DueApprovalsQuery,
} from '../persistence/approval-deadlines.js';

const DEFAULT_RETRY_MS = 1000;
const DEFAULT_BATCH = 100;

/** The store's deadline index as a loop reads it. */
export interface DeadlineIndex {
  dueApprovals(query: DueApprovalsQuery): Promise<DueApprovals>;
  dropStaleDeadline(entry: DeadlineEntry): Promise<boolean>;
}

/** What every loop over the deadline index takes. */
export interface DeadlineLoopOptions {
  /** Called with every error of a due entry and every damaged index entry; the loop goes on. */
  onError?: ((error: unknown, key: SessionKey | undefined) => void) | undefined;
  /** How long (ms) an entry that could not be fired now is left before it is tried again. */
  retryDelayMs?: number | undefined;
  /** Index entries read per scan. @default 100 */
  batchSize?: number | undefined;
  /**
   * How the scheduler fires the schedules whose targets are its own (`openSchedules`), with a
   * store that keeps schedules; `false`: it fires none. @default {}
   */
  schedules?: ScheduleFiringOptions | false | undefined;
}

/**
 * The one loop over the store's deadline index: approval deadlines of sessions' runs and the
 * durable timers of workflow instances are rows of that index, fired by the same loop. Each
 * pass fires what is due (`fire`, the kind's own: continue a run, restore an instance), then
 * the loop sleeps on the injected clock until the next deadline, woken early by `wake()` (a
 * save of this process that wrote an earlier one). What differs between the kinds is `fire`,
 * which entries are theirs (`inScope`) and work around each pass (`beforePass`, `afterPass`).
 * Schedules are rows of the same loop: with a store that keeps them, each pass also fires the
 * due ticks of the schedules whose targets the kind's `TickFirer` takes (`fireSchedules`).
 */
export abstract class DeadlineLoop {
  private readonly stopping = new AbortController();
  /** Aborts the current sleep: a pass is due now. */
  private wakeUp: AbortController | undefined;
  /** What the current sleep waits for (Infinity: only a wake). */
  protected sleepingUntil = Number.POSITIVE_INFINITY;
  /** A save asked for a pass while one was running. */
  private passAgain = false;
  private readonly reported = new Set<string>();
  private running: Promise<void> | undefined;
  /** The schedules this loop fires, when its kind fires some and the store keeps them. */
  private ticks: ScheduleFiring | undefined;

  constructor(
    protected readonly index: DeadlineIndex,
    protected readonly clock: Clock,
    protected readonly loopOptions: DeadlineLoopOptions,
    /** What the loop fires, in its warnings: `approval`, `workflow timer`. */
    private readonly what: string,
  ) {}

  /** Starts the loop (a subclass calls it once its own fields are set). */
  protected run(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.wakeUp?.abort();
    await this.running;
    await this.ticks?.settled();
    await this.stopped_();
  }

  /**
   * Fires the due ticks of the store's schedules whose targets `firer` takes, in each pass (a
   * subclass calls it before `run`, unless `schedules: false`).
   */
  protected fireSchedules(store: ScheduleStore | undefined, firer: TickFirer): void {
    const { schedules } = this.loopOptions;
    if (!store || schedules === false) return;
    this.ticks = new ScheduleFiring(
      store,
      this.clock,
      firer,
      `scheduler-${newId()}`,
      schedules ?? {},
      {
        wake: () => this.wake(),
        report: (error) => this.report(error, undefined, 'a schedule’s tick'),
        reportOnce: (error) => this.reportOnce(error),
        stopped: () => this.stopped,
      },
    );
  }

  /** What a kind closes when the loop stopped (its inbox subscription). */
  protected async stopped_(): Promise<void> {}

  protected get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Asks for a pass now. */
  protected wake(): void {
    this.passAgain = true;
    this.wakeUp?.abort();
  }

  /** Fires one due entry; false when it must be tried again later. */
  protected abstract fire(entry: DeadlineEntry): Promise<boolean>;

  /** Whether the entry is this loop's to fire. */
  protected inScope(_key: SessionKey): boolean {
    return true;
  }

  /** Work before a pass (subscribing to notifications). */
  protected async beforePass(): Promise<void> {}

  /** Work after a pass; true when some of it must be tried again later. */
  protected async afterPass(): Promise<boolean> {
    return false;
  }

  /** The latest time the loop may sleep until (a poll), given when it would wake. */
  protected sleepLimit(at: number | undefined, _now: number): number | undefined {
    return at;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.passAgain = false;
      await this.beforePass();
      let next: number | undefined;
      let retry: boolean;
      try {
        ({ next, retry } = await this.pass());
        if (await this.afterPass()) retry = true;
        if (this.ticks) {
          const ticks = await this.ticks.pass(this.batchSize);
          if (ticks.next !== undefined) next = Math.min(next ?? ticks.next, ticks.next);
        }
      } catch (error) {
        // The index could not be read (e.g. the store is closing): try again later.
        this.report(error, undefined);
        retry = true;
      }
      if (this.stopped || this.passAgain) continue;
      const now = this.clock.now();
      const retryAt = now + (this.loopOptions.retryDelayMs ?? DEFAULT_RETRY_MS);
      const at = retry ? Math.min(next ?? retryAt, retryAt) : next;
      const limit = this.sleepLimit(at, now);
      // Schedules created or resumed elsewhere are seen at the next poll of their index.
      const poll = this.ticks ? now + this.ticks.pollMs : undefined;
      await this.sleep(poll === undefined ? limit : Math.min(limit ?? poll, poll));
    }
  }

  /** Fires every entry due now; returns the next deadline and whether any was left to retry. */
  private async pass(): Promise<{ next: number | undefined; retry: boolean }> {
    const until = this.clock.now();
    const limit = this.batchSize;
    let retry = false;
    let after: string | undefined;
    for (;;) {
      const page = await this.index.dueApprovals({ until, after, limit });
      for (const error of page.damaged) this.reportOnce(error);
      for (const entry of page.due) {
        if (this.stopped) return { next: undefined, retry };
        if (this.inScope(entry.key) && !(await this.fire(entry))) retry = true;
      }
      if (page.cursor === undefined) return { next: page.next, retry };
      after = page.cursor;
    }
  }

  protected get batchSize(): number {
    return this.loopOptions.batchSize ?? DEFAULT_BATCH;
  }

  /** Drops an index entry its record no longer holds. */
  protected async dropStale(entry: DeadlineEntry): Promise<void> {
    await this.index.dropStaleDeadline(entry).catch((e: unknown) => this.report(e, entry.key));
  }

  /** Waits until `at` (or only for a wake without it), a wake or stop. */
  private async sleep(at: number | undefined): Promise<void> {
    const wakeUp = new AbortController();
    this.wakeUp = wakeUp;
    this.sleepingUntil = at ?? Number.POSITIVE_INFINITY;
    if (this.stopped || this.passAgain) wakeUp.abort();
    try {
      if (at === undefined) {
        await new Promise<void>((resolve) => {
          if (wakeUp.signal.aborted) resolve();
          wakeUp.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } else {
        await this.clock.sleepUntil(at, wakeUp.signal);
      }
    } catch {
      // woken early
    } finally {
      this.wakeUp = undefined;
      this.sleepingUntil = Number.POSITIVE_INFINITY;
    }
  }

  protected reportOnce(error: Error): void {
    const id = (error as { key?: string }).key ?? error.message;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    this.report(error, undefined);
  }

  protected report(error: unknown, key: SessionKey | undefined, skipped = 'a deadline'): void {
    try {
      if (this.loopOptions.onError) this.loopOptions.onError(error, key);
      else {
        const where = key ? ` (session "${key.sessionId}")` : '';
        process.emitWarning(
          `agentstate: the ${this.what} scheduler skipped ${skipped}${where}: ${String(error)}`,
          { type: 'AgentstateSchedulerWarning' },
        );
      }
    } catch {
      // a throwing onError must not stop the scheduler
    }
  }
}
