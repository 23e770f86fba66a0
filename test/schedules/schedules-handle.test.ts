import { afterEach, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { Agent, openSchedules, workflows, type ScheduleInput } from '../../src/index.js';
import { FakeClock, MemorySessionStore } from '../../src/testing.js';
import type { ScheduleRecord } from '../../src/persistence/schedule-store.js';
import { tickKey } from '../../src/schedules/schedule-firing.js';
import { echoModel, texts } from '../helpers/session-fixtures.js';
import { until } from '../helpers/async.js';

const START = Date.UTC(2026, 0, 1);
const MIN = 60_000;

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function world() {
  const clock = new FakeClock(START);
  const store = new MemorySessionStore({ clock });
  const agent = new Agent({ name: 'digest', model: echoModel(), store, clock });
  const schedules = openSchedules(store, { clock });
  return { clock, store, agent, schedules };
}

const target = (sessionId: string, extra: object = {}): ScheduleInput['target'] => ({
  type: 'message',
  agent: 'digest',
  sessionId,
  text: 'digest',
  ...extra,
});

/** Everything the store holds of schedules: alice's and bob's, and their audit entries. */
async function stored(store: MemorySessionStore) {
  const [alice, bob, audit] = await Promise.all([
    store.listSchedules({ userId: 'alice' }),
    store.listSchedules({ userId: 'bob' }),
    store.readAudit({ userId: 'alice', kind: 'schedule' }),
  ]);
  return { alice: alice.schedules, bob: bob.schedules, audit: audit.entries };
}

describe('bad input is a typed error and stores nothing', () => {
  it('an invalid cron, an unknown zone, at in the past, another user’s session, a taken id', async () => {
    const { store, agent, schedules } = world();
    // bob has a session "s1"; alice has none of that id
    await agent.run('hello', { sessionId: 's1', userId: 'bob' });
    await schedules.create({
      id: 'taken',
      userId: 'alice',
      every: '1h',
      target: target('a', { create: true }),
    });
    const before = await stored(store);
    const cases: [ScheduleInput, object][] = [
      [
        { id: 'x', userId: 'alice', cron: '0 25 * * *', target: target('a', { create: true }) },
        { code: 'INVALID_SCHEDULE', field: 'cron' },
      ],
      [
        {
          id: 'x',
          userId: 'alice',
          cron: '0 9 * * 1',
          timezone: 'Europe/Gotham',
          target: target('a', { create: true }),
        },
        { code: 'INVALID_SCHEDULE', field: 'timezone' },
      ],
      [
        { id: 'x', userId: 'alice', at: START - 1, target: target('a', { create: true }) },
        { code: 'INVALID_SCHEDULE', field: 'at' },
      ],
      [
        { id: 'x', userId: 'alice', every: '1h', target: target('s1') },
        { code: 'INVALID_SCHEDULE', field: 'target.sessionId' },
      ],
      [
        { id: 'taken', userId: 'alice', every: '1h', target: target('a', { create: true }) },
        { code: 'SCHEDULE_EXISTS' },
      ],
      [
        {
          id: 'x',
          userId: 'alice',
          every: '1h',
          overlap: 'sometimes' as never,
          target: target('a', { create: true }),
        },
        { code: 'INVALID_SCHEDULE', field: 'overlap' },
      ],
      [
        {
          id: 'x',
          userId: 'alice',
          every: '1h',
          catchUp: { all: 0 },
          target: target('a', { create: true }),
        },
        { code: 'INVALID_SCHEDULE', field: 'catchUp' },
      ],
      [
        { id: 'x', userId: 'alice', every: '1h', target: { type: 'email' } as never },
        { code: 'INVALID_SCHEDULE', field: 'target.type' },
      ],
    ];
    for (const [input, error] of cases) {
      await expect(schedules.create(input)).rejects.toMatchObject(error);
    }
    expect(await stored(store)).toEqual(before);
    // bob's own session is his to schedule into
    await schedules.create({ id: 'b', userId: 'bob', every: '1h', target: target('s1') });
    // another user's schedule behaves as missing
    await expect(schedules.get('taken', { userId: 'bob' })).rejects.toMatchObject({
      code: 'SCHEDULE_NOT_FOUND',
    });
    await expect(schedules.pause('taken', { userId: 'bob' })).rejects.toMatchObject({
      code: 'SCHEDULE_NOT_FOUND',
    });
    await expect(schedules.delete('taken')).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    expect((await stored(store)).alice).toEqual(before.alice);
  });
});

describe('operating a schedule', () => {
  it('pause stops its ticks; resume goes on from now without catching up; delete removes it; each change audited', async () => {
    const { clock, store, agent, schedules } = world();
    await schedules.create(
      { id: 'p', userId: 'alice', every: '10m', target: target('p', { create: true }) },
      { by: 'ops' },
    );
    expect(await schedules.next('p', { userId: 'alice' })).toEqual(
      [10, 20, 30, 40, 50].map((m) => START + m * MIN),
    );
    const scheduler = agent.startScheduler({ schedules: { pollMs: MIN } });
    stops.push(() => scheduler.stop());
    clock.set(START + 10 * MIN);
    await until(
      async () =>
        (await schedules.get('p', { userId: 'alice' })).lastTick?.tick === START + 10 * MIN,
    );
    // a second on: the audit log orders entries of one millisecond by their ids, not their writes
    clock.set(START + 10 * MIN + 1000);
    await schedules.pause('p', { userId: 'alice', by: 'ops', via: 'cli' });
    for (let m = 11; m <= 45; m++) clock.set(START + m * MIN);
    expect((await schedules.get('p', { userId: 'alice' })).runs).toBe(1);
    const resumed = await schedules.resume('p', { userId: 'alice' });
    expect(resumed.nextAt).toBe(START + 50 * MIN);
    clock.set(START + 50 * MIN);
    await until(
      async () =>
        (await schedules.get('p', { userId: 'alice' })).lastTick?.tick === START + 50 * MIN,
    );
    expect((await schedules.get('p', { userId: 'alice' })).runs).toBe(2);
    clock.set(START + 50 * MIN + 1000);
    await schedules.delete('p', { userId: 'alice' });
    await expect(schedules.get('p', { userId: 'alice' })).rejects.toMatchObject({
      code: 'SCHEDULE_NOT_FOUND',
    });
    const audit = (await store.readAudit({ userId: 'alice', kind: 'schedule' })).entries;
    expect(audit.map((e) => e.action)).toEqual([
      'create',
      'tick',
      'pause',
      'resume',
      'tick',
      'delete',
    ]);
    expect(audit[0]).toMatchObject({ by: 'ops', scheduleId: 'p', sessionId: 'p' });
    expect(audit[2]).toMatchObject({ by: 'ops', via: 'cli' });
    expect(audit.every((e) => !e.summary.includes('digest'))).toBe(true); // never the message text
  });

  it('maxRuns and an at rule end the schedule: nothing fires after', async () => {
    const { clock, agent, schedules } = world();
    await schedules.create({
      id: 'twice',
      userId: 'alice',
      every: '1m',
      maxRuns: 2,
      target: target('t', { create: true }),
    });
    await schedules.create({
      id: 'once',
      userId: 'alice',
      at: START + 3 * MIN,
      target: target('o', { create: true }),
    });
    const scheduler = agent.startScheduler({ schedules: { pollMs: MIN } });
    stops.push(() => scheduler.stop());
    for (let m = 1; m <= 6; m++) {
      clock.set(START + m * MIN);
      if (m <= 3) {
        const id = m === 3 ? 'once' : 'twice';
        await until(
          async () =>
            (await schedules.get(id, { userId: 'alice' })).lastTick?.tick === START + m * MIN,
        );
      }
    }
    await until(async () => (await schedules.get('once', { userId: 'alice' })).firing.length === 0);
    expect(await schedules.get('twice', { userId: 'alice' })).toMatchObject({
      runs: 2,
      nextAt: undefined,
    });
    expect(await schedules.get('once', { userId: 'alice' })).toMatchObject({
      runs: 1,
      nextAt: undefined,
    });
    expect(await schedules.next('twice', { userId: 'alice' })).toEqual([]);
  });
});

describe('a crash while firing fires the tick once after recovery', () => {
  /** A record whose tick at START + 1 min was claimed by a process that died. */
  async function claimedByTheDead(
    store: MemorySessionStore,
    schedules: ReturnType<typeof openSchedules>,
  ) {
    const created = await schedules.create({
      id: 'c',
      userId: 'alice',
      every: '1m',
      target: target('c', { create: true }),
    });
    const record = (await store.getSchedule({ userId: 'alice', id: 'c' }))!;
    const claimed: ScheduleRecord = {
      ...record,
      nextAt: START + 2 * MIN,
      runs: 1,
      claims: [{ tick: START + MIN, owner: 'dead', until: START + MIN + 30_000 }],
      dueAt: START + MIN + 30_000,
    };
    await store.saveSchedule(claimed, undefined);
    return created;
  }

  it('a tick whose run was saved before the crash is settled with that run, not run again', async () => {
    const { clock, store, agent, schedules } = world();
    await claimedByTheDead(store, schedules);
    // the dead process's run of the tick, saved under the tick's message id
    const ran = await agent.run('digest', {
      sessionId: 'c',
      userId: 'alice',
      messageId: tickKey('c', START + MIN),
    });
    const scheduler = agent.startScheduler({ schedules: { pollMs: MIN } });
    stops.push(() => scheduler.stop());
    clock.set(START + MIN + 40_000);
    await until(
      async () => (await schedules.get('c', { userId: 'alice' })).lastTick?.tick === START + MIN,
    );
    expect((await schedules.get('c', { userId: 'alice' })).lastTick).toMatchObject({
      outcome: 'started',
      runId: ran.id,
    });
    const history = texts(await store.readHistory({ sessionId: 'c', userId: 'alice' }));
    expect(history.filter((t) => t === 'digest')).toHaveLength(1);
  });

  it('a tick that never ran before the crash runs once after the claim ran out', async () => {
    const { clock, store, agent, schedules } = world();
    await claimedByTheDead(store, schedules);
    const scheduler = agent.startScheduler({ schedules: { pollMs: MIN } });
    stops.push(() => scheduler.stop());
    clock.set(START + MIN + 20_000); // the claim still holds: left alone
    clock.set(START + MIN + 40_000);
    await until(
      async () => (await schedules.get('c', { userId: 'alice' })).lastTick?.tick === START + MIN,
    );
    const history = texts(await store.readHistory({ sessionId: 'c', userId: 'alice' }));
    expect(history.filter((t) => t === 'digest')).toHaveLength(1);
  });
});

describe('workflow targets, fired by the workflow’s scheduler', () => {
  const counter = setup({
    types: { context: {} as { ticks: number }, events: {} as { type: 'TICK' } },
  }).createMachine({
    id: 'counter',
    context: { ticks: 0 },
    initial: 'counting',
    states: {
      counting: {
        on: { TICK: { actions: assign({ ticks: ({ context }) => context.ticks + 1 }) } },
      },
    },
  });

  it('an event every minute reaches the instance once per tick; a start starts one instance per tick', async () => {
    const clock = new FakeClock(START);
    const store = new MemorySessionStore({ clock });
    const flows = workflows(counter, { store, clock });
    await flows.start('main', { userId: 'alice' });
    const schedules = openSchedules(store, { clock });
    await schedules.create({
      id: 'tick',
      userId: 'alice',
      every: '1m',
      target: { type: 'event', workflow: 'counter', instanceId: 'main', event: { type: 'TICK' } },
    });
    await schedules.create({
      id: 'daily',
      userId: 'alice',
      every: '1m',
      overlap: 'interrupt',
      target: { type: 'start', workflow: 'counter', instanceId: 'run' },
    });
    const scheduler = flows.startScheduler({ schedules: { pollMs: MIN } });
    stops.push(
      () => scheduler.stop(),
      () => flows.close(),
    );
    for (let m = 1; m <= 3; m++) {
      clock.set(START + m * MIN);
      for (const id of ['tick', 'daily']) {
        await until(
          async () =>
            (await schedules.get(id, { userId: 'alice' })).lastTick?.tick === START + m * MIN,
        );
      }
    }
    const main = await flows.get('main', { userId: 'alice' });
    expect(main.context).toEqual({ ticks: 3 });
    const daily = await schedules.get('daily', { userId: 'alice' });
    expect(daily.lastTick).toMatchObject({
      outcome: 'interrupted',
      sessionId: `run-${START + 3 * MIN}`,
    });
    const started = await flows.list({ userId: 'alice' });
    expect(started.workflows.map((w) => w.id).sort()).toEqual(
      ['main', ...[1, 2, 3].map((m) => `run-${START + m * MIN}`)].sort(),
    );
  });
});

describe('the schedulers’ schedules option', () => {
  it('a wrong value is a TypeError naming it, for an agent’s scheduler and a workflow’s', () => {
    const { agent, store, clock } = world();
    const flows = workflows(setup({}).createMachine({ id: 'w' }), { store, clock });
    for (const schedules of [{ claimMs: 0 }, { pollMs: 1.5 }, { every: 1 }, true]) {
      expect(() => agent.startScheduler({ schedules: schedules as never })).toThrow(
        /startScheduler\(\): .*schedules/,
      );
      expect(() => flows.startScheduler({ schedules: schedules as never })).toThrow(
        /workflows\(\)\.startScheduler\(\): .*schedules/,
      );
    }
    expect(() => flows.startScheduler({ retryDelay: 5 } as never)).toThrow(/retryDelay/);
  });
});
