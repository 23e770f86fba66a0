import type { Clock } from '../core/clock.js';
import { ScheduleConflictError } from '../errors/schedule-errors.js';
import type {
  ScheduleRecord,
  ScheduleStore,
  ScheduleTarget,
  TickClaim,
  TickOutcome,
  TickRecord,
} from '../persistence/schedule-store.js';
import { scheduleAuditEntry } from './schedule-audit.js';
import { CronCache } from './schedule-rule.js';
import { planClaim, withDueAt, type TickPlan } from './tick-plan.js';

const DEFAULT_CLAIM_MS = 5 * 60_000;
const DEFAULT_GRACE_MS = 60_000;
const DEFAULT_CONCURRENCY = 16;
const DEFAULT_POLL_MS = 5000;
const MAX_TRIES = 16;

/** How a scheduler fires schedules (`startScheduler({ schedules })`). */
export interface ScheduleFiringOptions {
  /**
   * How long a tick claimed by this process is left to it: past it (the process died, or the
   * tick's run still goes on) another scheduler fires it again under the same idempotency key,
   * which runs it once. @default 300000 (5 min)
   */
  claimMs?: number | undefined;
  /** How late a tick may still fire under catch-up `none`. @default 60000 */
  graceMs?: number | undefined;
  /** Ticks fired side by side at most (a schedule's own ticks go one after another). @default 16 */
  maxConcurrentTicks?: number | undefined;
  /**
   * How often (ms, by the scheduler's clock) the next-tick index is read again while nothing
   * is due: schedules created or resumed elsewhere are seen within it. @default 5000
   */
  pollMs?: number | undefined;
}

const FIRING_OPTIONS = ['claimMs', 'graceMs', 'maxConcurrentTicks', 'pollMs'];

/** Whether `value` is `false` or firing options of positive integers (what a check accepts). */
export function isScheduleFiringOptions(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(
    ([name, v]) =>
      FIRING_OPTIONS.includes(name) &&
      (v === undefined || (Number.isSafeInteger(v) && (v as number) > 0)),
  );
}

/** What a fired tick did. */
export interface FiredTick {
  outcome: Exclude<TickOutcome, 'missed'>;
  runId?: string | undefined;
  sessionId?: string | undefined;
  error?: { code: string; message: string } | undefined;
}

/**
 * How one kind of scheduler fires its targets: an agent's scheduler its message targets, a
 * workflow's its events and starts.
 */
export interface TickFirer {
  /** Whether this scheduler fires `target`. */
  takes(target: ScheduleTarget): boolean;
  /**
   * Fires one tick under its idempotency key (`sched:<id>:<tick>`). `retry`: the tick was
   * claimed before and may have fired; busy then is `'later'` (tried again after the claim),
   * never `skipped`.
   */
  fire(
    schedule: ScheduleRecord,
    tick: number,
    key: string,
    retry: boolean,
  ): Promise<FiredTick | 'later'>;
}

/** The idempotency key of a schedule's tick. */
export const tickKey = (scheduleId: string, tick: number): string => `sched:${scheduleId}:${tick}`;

/** An error as a tick keeps it: its code and message, never a stack. */
export function tickError(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown }).code;
  return {
    code: typeof code === 'string' ? code : 'ERROR',
    message: error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500),
  };
}

/**
 * The schedules part of the one scheduler (`DeadlineLoop`): each pass reads the store's
 * next-tick index, claims the due ticks of the targets its firer takes (one versioned write:
 * of two processes at one version, one claims), fires them (a schedule's ticks in order,
 * schedules side by side up to `maxConcurrentTicks`), and settles each with its audit entry.
 * A claim whose process died is fired again by any scheduler after its `until`, under the
 * same idempotency key.
 */
export class ScheduleFiring {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly crons = new CronCache();
  private readonly claimMs: number;
  private readonly graceMs: number;
  private readonly concurrency: number;
  /** How long the loop may sleep at most while it fires schedules. */
  readonly pollMs: number;
  /** A pass stopped claiming for want of room: wake the loop when a tick settles. */
  private full = false;

  constructor(
    private readonly store: ScheduleStore,
    private readonly clock: Clock,
    private readonly firer: TickFirer,
    private readonly owner: string,
    options: ScheduleFiringOptions,
    private readonly events: {
      wake(): void;
      report(error: unknown): void;
      reportOnce(error: Error): void;
      stopped(): boolean;
    },
  ) {
    this.claimMs = options.claimMs ?? DEFAULT_CLAIM_MS;
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.concurrency = options.maxConcurrentTicks ?? DEFAULT_CONCURRENCY;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

  /** Claims and starts firing what is due now; returns the next `dueAt` of the index. */
  async pass(batchSize: number): Promise<{ next: number | undefined }> {
    const until = this.clock.now();
    let after: string | undefined;
    this.full = false;
    for (;;) {
      const page = await this.store.dueSchedules({ until, after, limit: batchSize });
      for (const error of page.damaged) this.events.reportOnce(error);
      for (const record of page.due) {
        if (this.events.stopped()) return { next: undefined };
        if (this.inFlight.size >= this.concurrency) {
          this.full = true;
          return { next: undefined };
        }
        if (this.firer.takes(record.target)) await this.claim(record, until);
      }
      if (page.cursor === undefined) return { next: page.next };
      after = page.cursor;
    }
  }

  /** Resolves once every tick being fired has settled. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async claim(record: ScheduleRecord, now: number): Promise<void> {
    const plan = planClaim(
      record,
      now,
      { owner: this.owner, claimMs: this.claimMs, graceMs: this.graceMs },
      this.crons.of(record.rule),
    );
    if (!plan) return;
    const audit = this.missedAudit(plan, now);
    let claimed: ScheduleRecord;
    try {
      claimed = await this.store.saveSchedule(plan.record, audit);
    } catch (error) {
      // Another scheduler claimed it (or an operator changed it) first: theirs now.
      if (error instanceof ScheduleConflictError) return;
      this.events.report(error);
      return;
    }
    const ticks = [
      ...plan.retry.map((c) => ({ c, retry: true })),
      ...plan.fire.map((c) => ({ c, retry: false })),
    ];
    if (ticks.length === 0) return;
    ticks.sort((a, b) => a.c.tick - b.c.tick);
    const work = this.fireAll(claimed, ticks).catch((error: unknown) => this.events.report(error));
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      if (this.full) this.events.wake();
    });
  }

  /**
   * The audit entry of ticks passed over with none fired (catch-up `none`), its tick kept as the
   * plan's record's `lastTick`.
   */
  private missedAudit(plan: TickPlan, now: number) {
    if (plan.lastMissed === undefined || plan.fire.length > 0) return undefined;
    const tick: TickRecord = {
      tick: plan.lastMissed,
      firedAt: now,
      outcome: 'missed',
      missed: plan.missed,
    };
    plan.record.lastTick = tick;
    return scheduleAuditEntry(plan.record, 'tick', now, {}, tick);
  }

  private async fireAll(
    record: ScheduleRecord,
    ticks: { c: TickClaim; retry: boolean }[],
  ): Promise<void> {
    for (const { c, retry } of ticks) {
      if (this.events.stopped()) return;
      let fired: FiredTick | 'later';
      try {
        fired = await this.firer.fire(record, c.tick, tickKey(record.id, c.tick), retry);
      } catch (error) {
        fired = { outcome: 'failed', error: tickError(error) };
      }
      // Busy on a retry: left claimed, fired again once the claim runs out.
      if (fired === 'later') continue;
      await this.settle(record, c, fired);
    }
  }

  /** Drops the claim and records the tick, with its audit entry; read again on a conflict. */
  private async settle(from: ScheduleRecord, claim: TickClaim, fired: FiredTick): Promise<void> {
    let record: ScheduleRecord | undefined = from;
    for (let attempt = 1; record; attempt++) {
      const mine = record.claims?.find((c) => c.tick === claim.tick && c.owner === this.owner);
      // Settled by another scheduler that took the claim over: nothing left to do.
      if (!mine) return;
      const now = this.clock.now();
      const tick: TickRecord = {
        tick: claim.tick,
        firedAt: now,
        outcome: fired.outcome,
        ...(fired.runId === undefined ? {} : { runId: fired.runId }),
        ...(fired.sessionId === undefined ? {} : { sessionId: fired.sessionId }),
        ...(mine.missed === undefined ? {} : { missed: mine.missed }),
        ...(fired.error === undefined ? {} : { error: fired.error }),
      };
      const newer = record.lastTick === undefined || record.lastTick.tick <= claim.tick;
      const next = withDueAt({
        ...record,
        claims: (record.claims ?? []).filter((c) => c !== mine),
        ...(newer ? { lastTick: tick } : {}),
        updatedAt: now,
      });
      try {
        await this.store.saveSchedule(next, scheduleAuditEntry(next, 'tick', now, {}, tick));
        return;
      } catch (error) {
        if (!(error instanceof ScheduleConflictError) || attempt >= MAX_TRIES) throw error;
      }
      record = await this.store.getSchedule({ userId: from.userId, id: from.id });
    }
  }
}
