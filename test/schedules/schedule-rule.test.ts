import { describe, expect, it } from 'vitest';
import { Cron } from 'croner';
import {
  COUNTED_TICKS,
  CronCache,
  checkedRule,
  nextTicks,
  ticksBetween,
} from '../../src/schedules/schedule-rule.js';
import { planClaim } from '../../src/schedules/tick-plan.js';
import type { ScheduleRecord } from '../../src/persistence/schedule-store.js';

const NOW = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;

/** `at` as Berlin's wall clock: weekday, hour and minute. */
function berlin(at: number): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

describe('rules', () => {
  it('0 9 * * 1 in Europe/Berlin is every Monday at 9:00 local, across both changes of 2026', () => {
    const rule = checkedRule({ cron: '0 9 * * 1', timezone: 'Europe/Berlin' }, NOW, 'digest');
    const year = nextTicks(rule, NOW, 60).filter((t) => t < Date.UTC(2027, 0, 1));
    expect(year).toHaveLength(52);
    expect(new Set(year.map(berlin))).toEqual(new Set(['Mon 09:00']));
    const iso = (t: number) => new Date(t).toISOString();
    // Summer time from 29 March: 9:00 is 08:00Z before, 07:00Z after; back on 25 October.
    expect(year.map(iso)).toContain('2026-03-23T08:00:00.000Z');
    expect(year.map(iso)).toContain('2026-03-30T07:00:00.000Z');
    expect(year.map(iso)).toContain('2026-10-19T07:00:00.000Z');
    expect(year.map(iso)).toContain('2026-10-26T08:00:00.000Z');
    // a week apart except across a change, where it is an hour shorter or longer
    const gaps = year.slice(1).map((t, i) => (t - year[i]!) / HOUR);
    expect(gaps.filter((g) => g !== 168).sort()).toEqual([167, 169]);
  });

  it('a cron in UTC read at a fixed offset of 0 gives the ticks croner gives through the zone', () => {
    const rule = { cron: '*/7 3-5 * * 1,3,5', timezone: 'UTC' };
    const zoned = new Cron(rule.cron, { timezone: 'UTC', paused: true });
    let at = new Date(NOW);
    const expected: number[] = [];
    for (let i = 0; i < 500; i++) {
      at = zoned.nextRun(at)!;
      expected.push(at.getTime());
    }
    expect(nextTicks(rule, NOW, 500)).toEqual(expected);
    const cache = new CronCache(2);
    const parsed = cache.of(rule);
    expect(cache.of({ ...rule })).toBe(parsed);
    expect(cache.of({ every: 1000, from: 0 })).toBeUndefined();
  });

  it('a long outage of a frequent cron is not walked tick by tick: the latest ticks are read back from now', () => {
    const rule = checkedRule({ cron: '* * * * * *', timezone: 'Europe/Berlin' }, NOW, 's');
    const hourLater = NOW + HOUR;
    const { ticks, passed } = ticksBetween(rule, NOW, hourLater, 3);
    expect(ticks).toEqual([hourLater - 2000, hourLater - 1000, hourLater]);
    expect(passed).toBeGreaterThanOrEqual(COUNTED_TICKS - 3);
    // a short outage is counted exactly
    expect(ticksBetween(rule, NOW, NOW + 20_000, 3)).toEqual({
      ticks: [NOW + 18_000, NOW + 19_000, NOW + 20_000],
      passed: 17,
    });
  });

  it('every 15 minutes is 96 ticks a day, evenly spaced', () => {
    const rule = checkedRule({ every: '15m' }, NOW, 'poll');
    expect(rule).toEqual({ every: 15 * MIN, from: NOW });
    const day = nextTicks(rule, NOW, 200).filter((t) => t <= NOW + 24 * HOUR);
    expect(day).toHaveLength(96);
    expect(day[0]).toBe(NOW + 15 * MIN);
    expect(day.at(-1)).toBe(NOW + 24 * HOUR);
  });

  it('a rule that cannot be kept is InvalidScheduleError naming the field', () => {
    const bad: [Parameters<typeof checkedRule>[0], string][] = [
      [{ cron: '61 * * * *' }, 'cron'],
      [{ cron: 'every day' }, 'cron'],
      [{ cron: '0 9 * * 1', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ at: NOW - 1 }, 'at'],
      [{ at: 'tomorrow' }, 'at'],
      [{ every: 999 }, 'every'],
      [{ every: '5 minutes' }, 'every'],
      [{ every: '15m', cron: '* * * * *' }, 'rule'],
      [{}, 'rule'],
      [{ every: '1h', timezone: 'Europe/Berlin' }, 'timezone'],
    ];
    for (const [input, field] of bad) {
      let caught: unknown;
      try {
        checkedRule(input, NOW, 's');
      } catch (error) {
        caught = error;
      }
      expect({ input, caught }).toMatchObject({
        input,
        caught: { code: 'INVALID_SCHEDULE', field },
      });
    }
  });
});

/** A schedule every 15 minutes from NOW whose next tick is `nextAt`. */
function every15(extra: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    id: 'poll',
    userId: 'u',
    rule: { every: 15 * MIN, from: NOW },
    target: { type: 'message', agent: 'a', sessionId: 's', text: 't' },
    overlap: 'skip',
    catchUp: 'latest',
    paused: false,
    nextAt: NOW + 15 * MIN,
    dueAt: NOW + 15 * MIN,
    runs: 0,
    createdAt: NOW,
    updatedAt: NOW,
    version: 1,
    ...extra,
  };
}

describe('claims after three hours without a scheduler', () => {
  const options = { owner: 'me', claimMs: 5 * MIN, graceMs: MIN };
  // 12 ticks were due (0:15 ... 3:00); the scheduler comes back at 3:05
  const back = NOW + 3 * HOUR + 5 * MIN;
  const ticksOf = (record: ScheduleRecord) => planClaim(record, back, options);

  it('none fires no missed tick; latest fires the 3:00 one; { all: 5 } the latest five, in order', () => {
    const none = ticksOf(every15({ catchUp: 'none' }))!;
    expect(none.fire).toEqual([]);
    expect(none.missed).toBe(12);
    expect(none.lastMissed).toBe(NOW + 3 * HOUR);
    expect(none.record.nextAt).toBe(NOW + 3 * HOUR + 15 * MIN);

    const latest = ticksOf(every15({ catchUp: 'latest' }))!;
    expect(latest.fire.map((c) => c.tick)).toEqual([NOW + 3 * HOUR]);
    expect(latest.fire[0]!.missed).toBe(11);
    expect(latest.record.runs).toBe(1);

    const all = ticksOf(every15({ catchUp: { all: 5 } }))!;
    expect(all.fire.map((c) => (c.tick - NOW) / MIN)).toEqual([120, 135, 150, 165, 180]);
    expect(all.missed).toBe(7);
    expect(all.record.claims).toHaveLength(5);
    expect(all.record.dueAt).toBe(back + 5 * MIN);
  });

  it('a tick late within the grace fires under none; maxRuns and endAt end the schedule', () => {
    const onTime = planClaim(every15({ catchUp: 'none' }), NOW + 15 * MIN + 30_000, options)!;
    expect(onTime.fire.map((c) => c.tick)).toEqual([NOW + 15 * MIN]);

    const capped = ticksOf(every15({ catchUp: { all: 100 }, maxRuns: 3 }))!;
    expect(capped.fire).toHaveLength(3);
    expect(capped.record.nextAt).toBeUndefined();

    const ended = ticksOf(every15({ catchUp: { all: 100 }, endAt: NOW + HOUR }))!;
    expect(ended.fire.map((c) => (c.tick - NOW) / MIN)).toEqual([15, 30, 45, 60]);
    expect(ended.record.nextAt).toBeUndefined();
    expect(ended.record.dueAt).toBe(back + 5 * MIN);
  });

  it('a claim past its until is taken over, a live one left alone', () => {
    const claims = [
      { tick: NOW + 15 * MIN, owner: 'dead', until: back - 1 },
      { tick: NOW + 30 * MIN, owner: 'alive', until: back + MIN },
    ];
    const plan = planClaim(every15({ paused: true, claims }), back, options)!;
    expect(plan.fire).toEqual([]);
    expect(plan.retry).toEqual([{ tick: NOW + 15 * MIN, owner: 'me', until: back + 5 * MIN }]);
    expect(plan.record.claims!.map((c) => c.owner)).toEqual(['me', 'alive']);
    expect(
      planClaim(every15({ paused: true, claims: [claims[1]!] }), back, options),
    ).toBeUndefined();
  });
});
