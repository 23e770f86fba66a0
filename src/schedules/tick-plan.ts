import type { ScheduleRecord, TickClaim } from '../persistence/schedule-store.js';
import type { Cron } from 'croner';
import { nextTick, ticksBetween } from './schedule-rule.js';

/** A schedule's claims at most (the record's schema bound). */
export const MAX_CLAIMS = 100;

/** How a scheduler claims ticks. */
export interface ClaimOptions {
  /** Its owner name, kept in each claim. */
  owner: string;
  /** How long a claim holds before another scheduler may fire the tick again. */
  claimMs: number;
  /** How late a tick may fire under catch-up `none` (a scheduler woken late, not a process down). */
  graceMs: number;
}

/** What a scheduler may do with a due schedule now. */
export interface TickPlan {
  /** The record to write (its version the one read): claims added, next tick moved on. */
  record: ScheduleRecord;
  /** The ticks newly claimed, oldest first (may be empty: all missed). */
  fire: TickClaim[];
  /** Claims of others past their `until`, taken over, oldest first. */
  retry: TickClaim[];
  /** Ticks passed over by the catch-up policy. */
  missed: number;
  /** The latest tick passed over, when no tick fires this time. */
  lastMissed: number | undefined;
}

/**
 * When a scheduler must look at `record` next: its next tick (unless paused), or the earliest
 * `until` of its claims; `undefined` when never (ended, or paused with nothing claimed).
 */
export function dueAtOf(record: Omit<ScheduleRecord, 'dueAt'>): number | undefined {
  let due = record.paused ? undefined : record.nextAt;
  for (const claim of record.claims ?? [])
    due = due === undefined ? claim.until : Math.min(due, claim.until);
  return due;
}

/** `record` with `dueAt` recomputed (and `claims` dropped when empty). */
export function withDueAt(record: ScheduleRecord): ScheduleRecord {
  const { dueAt: _old, claims, ...rest } = record;
  const next: ScheduleRecord = { ...rest, ...(claims && claims.length > 0 ? { claims } : {}) };
  const dueAt = dueAtOf(next);
  return dueAt === undefined ? next : { ...next, dueAt };
}

/**
 * The next tick of `record` after `after`, within its `endAt` and `maxRuns` (with `runs`
 * counted); `undefined` once it has ended.
 */
export function nextTickWithin(
  record: Pick<ScheduleRecord, 'rule' | 'endAt' | 'maxRuns'>,
  after: number,
  runs: number,
  cron?: Cron,
): number | undefined {
  if (record.maxRuns !== undefined && runs >= record.maxRuns) return undefined;
  const next = nextTick(record.rule, after, cron);
  if (next === undefined || (record.endAt !== undefined && next > record.endAt)) return undefined;
  return next;
}

/**
 * What to claim of a due schedule at `now`: the ticks its catch-up policy fires (`none`: one
 * within `graceMs` of now; `latest`: the latest; `{ all: n }`: the latest n, oldest first),
 * within `maxRuns` and `endAt`; the claims of others past their `until`; the next tick after
 * now. `undefined` when there is nothing to do (not due, or claimed by a live claim only).
 */
export function planClaim(
  record: ScheduleRecord,
  now: number,
  options: ClaimOptions,
  /** The rule's cron parsed (`CronCache`), when it is one. */
  cron?: Cron,
): TickPlan | undefined {
  const claims = record.claims ?? [];
  const retry = claims
    .filter((c) => c.until <= now)
    .map((c) => ({ ...c, owner: options.owner, until: now + options.claimMs }));
  const live = claims.filter((c) => c.until > now);
  let fire: TickClaim[] = [];
  let missed = 0;
  let lastMissed: number | undefined;
  let { nextAt, runs } = record;
  if (!record.paused && nextAt !== undefined && nextAt <= now) {
    const keep = record.catchUp === 'none' || record.catchUp === 'latest' ? 1 : record.catchUp.all;
    const room = Math.max(0, MAX_CLAIMS - live.length - retry.length);
    const due = ticksBetween(
      record.rule,
      nextAt - 1,
      Math.min(now, record.endAt ?? now),
      Math.max(1, Math.min(keep, room)),
      cron,
    );
    missed = due.passed;
    let ticks = due.ticks;
    if (record.catchUp === 'none') {
      const late = ticks.filter((t) => now - t > options.graceMs);
      missed += late.length;
      ticks = ticks.filter((t) => now - t <= options.graceMs);
      if (ticks.length === 0) lastMissed = late.at(-1);
    }
    if (record.maxRuns !== undefined) {
      const left = Math.max(0, record.maxRuns - runs);
      ticks = ticks.slice(Math.max(0, ticks.length - left));
    }
    fire = ticks.map((tick, i) => ({
      tick,
      owner: options.owner,
      until: now + options.claimMs,
      ...(i === 0 && missed > 0 ? { missed } : {}),
    }));
    runs += fire.length;
    nextAt = nextTickWithin(record, now, runs, cron);
  }
  if (fire.length === 0 && retry.length === 0 && nextAt === record.nextAt) return undefined;
  const { nextAt: _nextAt, ...base } = record;
  const next = withDueAt({
    ...base,
    runs,
    claims: [...live, ...retry, ...fire].sort((a, b) => a.tick - b.tick),
    updatedAt: now,
    ...(nextAt === undefined ? {} : { nextAt }),
  });
  return { record: next, fire, retry, missed, lastMissed };
}
