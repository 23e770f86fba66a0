import { afterEach, describe, expect, it } from 'vitest';
import { Agent, openSchedules, type ScheduleInput, type SchedulesHandle } from '../../src/index.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import type { ApprovalSchedulerHandle } from '../../src/approvals/approval-scheduler-options.js';
import { deferred, until } from '../helpers/async.js';
import { texts } from '../helpers/session-fixtures.js';

const START = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;

const running: ApprovalSchedulerHandle[] = [];
afterEach(async () => {
  for (const scheduler of running.splice(0)) await scheduler.stop();
});

/** What each run of the agent read of its schedule, in the order the runs started. */
type Seen = { tick: number; at: number }[];

/**
 * An agent over a memory store with a fake clock; each run notes the schedule tick its metadata
 * carries. `gate`, when given, holds the model's answer of the runs whose message it names.
 */
function world(gate?: (text: string) => Promise<void>) {
  const clock = new FakeClock(START);
  const store = new MemorySessionStore({ clock });
  const seen: Seen = [];
  const model = new ScriptedModel(async (request) => {
    const said = texts(request.items.filter((i) => i.type === 'message' && i.role === 'user'));
    const last = said.at(-1) ?? '';
    await gate?.(last);
    return { text: `done: ${last}` };
  });
  const agent = new Agent({
    name: 'digest',
    model,
    store,
    clock,
    instructions: (context) => {
      const schedule = context.metadata['schedule'] as { tick: number } | undefined;
      if (schedule) seen.push({ tick: schedule.tick, at: clock.now() });
      return 'You write digests.';
    },
  });
  const schedules = openSchedules(store, { clock });
  const start = (pollMs = 5_000) => {
    const scheduler = agent.startScheduler({ schedules: { pollMs } });
    running.push(scheduler);
    return scheduler;
  };
  return { clock, store, agent, schedules, seen, start };
}

const message = (sessionId: string, text = 'digest'): ScheduleInput['target'] => ({
  type: 'message',
  agent: 'digest',
  sessionId,
  text,
  create: true,
});

/** Waits until the schedule's last tick is `tick` and it is not being fired any more. */
async function settledAt(schedules: SchedulesHandle, id: string, tick: number) {
  await until(
    async () => {
      const info = await schedules.get(id, { userId: 'u' });
      return info.lastTick?.tick === tick && !info.firing.includes(tick);
    },
    `tick ${new Date(tick).toISOString()} of ${id}`,
  );
}

/** Mondays 9:00 on Berlin's wall clock in 2026, found hour by hour (not by the cron library). */
function berlinMondaysAtNine(): number[] {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const out: number[] = [];
  for (let t = START; t < Date.UTC(2027, 0, 1); t += HOUR) {
    if (format.format(t) === 'Mon 09:00') out.push(t);
  }
  return out;
}

describe('schedules fired by the one scheduler, with an injected clock', () => {
  it('0 9 * * 1 in Europe/Berlin fires at each Monday 9:00 of 2026, across both changes, each tick once', async () => {
    const { clock, schedules, seen, start, store } = world();
    await schedules.create({
      id: 'weekly',
      userId: 'u',
      cron: '0 9 * * 1',
      timezone: 'Europe/Berlin',
      target: message('digest'),
    });
    start();
    const expected = berlinMondaysAtNine();
    expect(expected).toHaveLength(52);
    for (const [i, tick] of expected.entries()) {
      clock.set(tick);
      await settledAt(schedules, 'weekly', tick);
      expect((await schedules.get('weekly', { userId: 'u' })).runs).toBe(i + 1);
    }
    expect(seen).toEqual(expected.map((tick) => ({ tick, at: tick })));
    const history = await store.readHistory({ sessionId: 'digest', userId: 'u' });
    expect(texts(history).filter((t) => t === 'digest')).toHaveLength(52);
    const audit = await store.readAudit({ userId: 'u', kind: 'schedule', limit: 1000 });
    const ticks = audit.entries.filter((e) => e.action === 'tick');
    expect(ticks).toHaveLength(52);
    expect(new Set(ticks.map((e) => e.runId)).size).toBe(52);
  });

  it('every 15 minutes fires 96 times in a day walked minute by minute, each tick once', async () => {
    const { clock, schedules, seen, start } = world();
    await schedules.create({ id: 'poll', userId: 'u', every: '15m', target: message('poll') });
    start(MIN);
    for (let minute = 1; minute <= 24 * 60; minute++) {
      clock.set(START + minute * MIN);
      if (minute % 15 === 0) await settledAt(schedules, 'poll', START + minute * MIN);
    }
    expect(seen).toHaveLength(96);
    expect(seen.map((s) => s.tick)).toEqual(
      Array.from({ length: 96 }, (_, i) => START + (i + 1) * 15 * MIN),
    );
  });
});

describe('catch-up after three hours without a scheduler', () => {
  it('none fires no missed tick, latest the latest one, { all: 5 } the latest five in order; then each goes on on time', async () => {
    const { clock, schedules, seen, start } = world();
    for (const [id, catchUp] of [
      ['none', 'none'],
      ['latest', 'latest'],
      ['all', { all: 5 }],
    ] as const) {
      await schedules.create({ id, userId: 'u', every: '15m', catchUp, target: message(id, id) });
    }
    // No process ran a scheduler from 0:00 to 3:05: twelve ticks each were due.
    clock.set(START + 3 * HOUR + 5 * MIN);
    start();
    await settledAt(schedules, 'none', START + 3 * HOUR);
    await settledAt(schedules, 'latest', START + 3 * HOUR);
    await settledAt(schedules, 'all', START + 3 * HOUR);
    const none = await schedules.get('none', { userId: 'u' });
    expect(none.lastTick).toMatchObject({ outcome: 'missed', missed: 12 });
    expect(none.runs).toBe(0);
    const latest = await schedules.get('latest', { userId: 'u' });
    expect(latest.lastTick).toMatchObject({ outcome: 'started', missed: 11 });
    expect(latest.runs).toBe(1);
    const all = await schedules.get('all', { userId: 'u' });
    expect(all.runs).toBe(5);
    const caughtUp = seen.map((s) => (s.tick - START) / MIN);
    expect(caughtUp.filter((m) => m !== 180).sort((a, b) => a - b)).toEqual([120, 135, 150, 165]);
    expect(caughtUp.filter((m) => m === 180)).toHaveLength(2); // latest's and all's
    // then on time: 3:15 fires for each, none included
    seen.length = 0;
    clock.set(START + 3 * HOUR + 15 * MIN);
    for (const id of ['none', 'latest', 'all']) {
      await settledAt(schedules, id, START + 3 * HOUR + 15 * MIN);
    }
    expect(seen.map((s) => s.tick)).toEqual(Array(3).fill(START + 3 * HOUR + 15 * MIN));
  });
});

describe('a busy target: the overlap policies', () => {
  /** Every minute into one session; the first tick's run waits until released. */
  async function busy(overlap: 'skip' | 'queue' | 'interrupt') {
    const release = deferred<void>();
    let held = 0;
    const w = world(async (text) => {
      if (text === 'work' && held++ === 0) await release.promise;
    });
    await w.schedules.create({
      id: overlap,
      userId: 'u',
      every: '1m',
      overlap,
      target: message('busy', 'work'),
    });
    w.start(MIN);
    w.clock.set(START + MIN);
    await until(() => held === 1, 'the first run to be held');
    w.clock.set(START + 2 * MIN);
    return { ...w, release };
  }

  it('skip: the tick that meets the run is skipped, nothing queued or lost', async () => {
    const { schedules, seen, release, clock } = await busy('skip');
    await settledAt(schedules, 'skip', START + 2 * MIN);
    expect((await schedules.get('skip', { userId: 'u' })).lastTick).toMatchObject({
      outcome: 'skipped',
      error: { code: 'RUN_IN_PROGRESS' },
    });
    release.resolve();
    await until(async () => (await schedules.get('skip', { userId: 'u' })).firing.length === 0);
    clock.set(START + 3 * MIN);
    await settledAt(schedules, 'skip', START + 3 * MIN);
    expect(seen.map((s) => (s.tick - START) / MIN)).toEqual([1, 3]);
  });

  it('queue: the tick waits behind the run and runs after it, once', async () => {
    const { schedules, seen, release, store } = await busy('queue');
    await until(() => seen.length === 1);
    release.resolve();
    await settledAt(schedules, 'queue', START + 2 * MIN);
    expect(seen.map((s) => (s.tick - START) / MIN)).toEqual([1, 2]);
    const history = texts(await store.readHistory({ sessionId: 'busy', userId: 'u' }));
    expect(history.filter((t) => t === 'work')).toHaveLength(2);
  });

  it('interrupt: the running run is cancelled and the tick runs', async () => {
    const { schedules, seen, release, store } = await busy('interrupt');
    await settledAt(schedules, 'interrupt', START + 2 * MIN);
    const info = await schedules.get('interrupt', { userId: 'u' });
    expect(info.lastTick).toMatchObject({ outcome: 'interrupted' });
    release.resolve();
    await settledAt(schedules, 'interrupt', START + 2 * MIN);
    expect(seen.map((s) => (s.tick - START) / MIN)).toEqual([1, 2]);
    // both messages are in the history; only the second run answered (the first was cancelled)
    const history = texts(await store.readHistory({ sessionId: 'busy', userId: 'u' }));
    expect(history.filter((t) => t === 'work')).toHaveLength(2);
    expect(history.filter((t) => t === 'done: work')).toHaveLength(1);
  });
});
