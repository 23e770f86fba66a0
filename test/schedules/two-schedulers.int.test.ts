import { afterEach, describe, expect, it } from 'vitest';
import { openSchedules } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import type { ScheduleRecord } from '../../src/persistence/schedule-store.js';
import { FakeClock } from '../../src/testing.js';
import { until } from '../helpers/async.js';
import { JsonLineChild } from '../helpers/json-line-child.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { bySize } from '../helpers/test-tier.js';

/**
 * Issue 44's acceptance on PostgreSQL: two processes (test/helpers/pg-schedule-worker.ts), each
 * running the scheduler of the same agent on one store, fire schedules that tick every minute,
 * their clocks set minute by minute by this test; half way one is SIGKILLed while it fires (its
 * model holds 16 runs mid-call), the survivor recovers its runs and fires its claimed ticks
 * again, and a new process joins. Every tick of every schedule fires exactly once: each
 * session answered each tick's message id once (one run each), each schedule settled each
 * tick once (one audit entry), none missed.
 *
 * Catch-up `latest` (the default): a tick not claimed within its own minute would be passed
 * over as `missed` when the next one is claimed, so a scheduler that lagged or lost a tick shows
 * as a tick missing from its session. A tick claimed by the killed process is claimed, not
 * missed: it fires again once its claim runs out (`claimMs`), under the same message id.
 *
 * Quick tier: 50 schedules for 6 minutes; long tier (`npm run test:long`): 1,000 schedules
 * for 60 minutes (60,000 ticks).
 */
const pgt = usePostgres();

const SIZE = bySize({
  quick: { schedules: 50, minutes: 6 },
  long: { schedules: 1000, minutes: 60 },
});
const T0 = Date.UTC(2026, 0, 5, 9, 0);
const MINUTE = 60_000;
/** Past it, another process fires a claimed tick again. */
const CLAIM_MS = 30_000;
/** Past it, another process may resume a run (shorter than a claim: recovered first). */
const LEASE_TTL_MS = 10_000;
/** The runs the killed process holds mid-call (its scheduler's ticks side by side, default 16). */
const HELD = 16;
const USER = 'u1';
const tickAt = (minute: number) => T0 + minute * MINUTE;
const scheduleId = (i: number) => `every-minute-${String(i).padStart(4, '0')}`;

describe('two schedulers on PostgreSQL, one SIGKILLed half way', () => {
  const children: JsonLineChild[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await child.stop();
  });

  it(
    `fire ${SIZE.schedules} schedules every minute for ${SIZE.minutes} minutes: every tick exactly once`,
    { timeout: bySize({ quick: 120_000, long: 3_600_000 }) },
    async () => {
      const schema = pgt.schema('two-schedulers');
      const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
      try {
        const schedules = openSchedules(store, { clock: new FakeClock(T0) });
        for (let i = 0; i < SIZE.schedules; i += 50) {
          await Promise.all(
            Array.from({ length: Math.min(50, SIZE.schedules - i) }, (_, j) =>
              schedules.create({
                id: scheduleId(i + j),
                userId: USER,
                every: MINUTE,
                target: {
                  type: 'message',
                  agent: 'ticker',
                  sessionId: `chat-${i + j}`,
                  text: 'check the queue',
                  create: true,
                },
              }),
            ),
          );
        }
        const start = async (at: number) => {
          const args = [pgt.url, schema, String(at), String(CLAIM_MS), String(LEASE_TTL_MS)];
          const child = await JsonLineChild.start('test/helpers/pg-schedule-worker.ts', args);
          children.push(child);
          expect(await child.next('ready', 'exited')).toEqual({ event: 'ready' });
          return child;
        };
        const setTime = async (child: JsonLineChild, at: number) => {
          child.send('time', { at });
          expect(await child.next('time', 'failed', 'exited')).toEqual({ event: 'time', at });
        };
        /** Schedules whose `dueAt` is not `dueAt` (claimed and not settled, or not claimed yet). */
        const pending = async (dueAt: number) => {
          const { rows } = await pgt.pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM "${schema}".agentstate_schedules
           WHERE due_at IS DISTINCT FROM $1`,
            [dueAt],
          );
          return rows[0]!.n;
        };
        const settled = (minute: number, left = 0) =>
          until(
            async () => (await pending(tickAt(minute + 1))) === left,
            `the ticks of minute ${minute} to settle`,
            300_000,
          );

        let live = [await start(T0), await start(T0)];
        const killAt = SIZE.minutes / 2;
        for (let minute = 1; minute <= SIZE.minutes; minute++) {
          const at = tickAt(minute);
          if (minute !== killAt) {
            await Promise.all(live.map((child) => setTime(child, at)));
            await settled(minute);
            continue;
          }
          // The process to kill fires first: its model answers 2 calls, then holds every call.
          const [survivor, doomed] = live as [JsonLineChild, JsonLineChild];
          doomed.send('hold', { after: 2 });
          await setTime(doomed, at);
          for (let held = 0; held < HELD;) {
            const event = await doomed.next('held', 'exited');
            expect(event.event).toBe('held');
            held = event['count'] as number;
          }
          // The survivor fires the rest of the minute while the other dies mid-firing.
          await setTime(survivor, at);
          await doomed.stop();
          // What the dead process claimed stays claimed (due again when its claims run out).
          await settled(minute, HELD);
          expect(await pending(at + CLAIM_MS)).toBe(SIZE.schedules - HELD);
          // Its leases run out first: the survivor resumes its runs (as every process does now
          // and then); then its claims: the survivor fires those ticks again, answered already.
          await setTime(survivor, at + LEASE_TTL_MS * 2);
          survivor.send('recover', { userId: USER });
          expect(await survivor.next('recovered', 'failed', 'exited')).toEqual({
            event: 'recovered',
            count: HELD,
            errors: [],
          });
          await setTime(survivor, at + CLAIM_MS + LEASE_TTL_MS);
          await settled(minute);
          // A new process takes the dead one's place.
          live = [survivor, await start(at + CLAIM_MS + LEASE_TTL_MS)];
        }

        // Every schedule: each tick claimed once and settled, as started; nothing claimed now.
        const records: ScheduleRecord[] = [];
        for (let cursor: string | undefined; ;) {
          const page = await store.listSchedules({ userId: USER, limit: 1000, cursor });
          records.push(...page.schedules);
          if (!(cursor = page.nextCursor)) break;
        }
        expect(records).toHaveLength(SIZE.schedules);
        const last = tickAt(SIZE.minutes);
        for (const record of records) {
          expect(record).toMatchObject({ runs: SIZE.minutes, nextAt: last + MINUTE });
          expect(record.lastTick).toMatchObject({ tick: last, outcome: 'started' });
          expect(record.claims).toBeUndefined();
        }
        // Every session: one run per tick, answering that tick's message id; none twice, none missing.
        const ticks = Array.from({ length: SIZE.minutes }, (_, m) => tickAt(m + 1));
        const doubled: string[] = [];
        const missed: string[] = [];
        for (let i = 0; i < SIZE.schedules; i++) {
          const session = await store.load({ sessionId: `chat-${i}`, userId: USER });
          const context = (session.snapshot as { context: SessionContext }).context;
          const answered = context.answered.map((a) => a.messageId);
          const expected = ticks.map((tick) => `sched:${scheduleId(i)}:${tick}`);
          doubled.push(...answered.filter((id, k) => answered.indexOf(id) !== k));
          missed.push(...expected.filter((id) => !answered.includes(id)));
          expect(context.runCount).toBe(SIZE.minutes);
          expect(new Set(context.answered.map((a) => a.runId)).size).toBe(SIZE.minutes);
        }
        expect({ doubled, missed }).toEqual({ doubled: [], missed: [] });
        // Every tick settled once: one audit entry each.
        const settles = new Map<string, number>();
        for (let cursor: string | undefined; ;) {
          const page = await store.readAudit({
            userId: USER,
            kind: 'schedule',
            limit: 1000,
            cursor,
          });
          for (const entry of page.entries) {
            if (entry.action !== 'tick') continue;
            expect(entry.summary).toMatch(/: started$/);
            const key = `${entry.scheduleId} ${/tick (\S+):/.exec(entry.summary)?.[1]}`;
            settles.set(key, (settles.get(key) ?? 0) + 1);
          }
          if (!(cursor = page.nextCursor)) break;
        }
        expect(settles.size).toBe(SIZE.schedules * SIZE.minutes);
        expect([...settles.values()].every((n) => n === 1)).toBe(true);
        // No scheduler reported an error (a claim lost to the other is not one).
        for (const child of live)
          expect(child.events.filter((e) => e.event !== 'time')).toEqual([]);
        for (const child of live) child.send('stop');
        expect(await Promise.all(live.map((child) => child.exitCode()))).toEqual([0, 0]);
      } finally {
        await store.close();
      }
    },
  );
});

interface SessionContext {
  runCount: number;
  answered: { messageId: string; runId: string }[];
}
