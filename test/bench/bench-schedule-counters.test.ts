import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { openSchedules } from '../../src/schedules/schedules-handle.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import {
  BACKEND_OPS,
  countBackend,
  PhaseCounter,
  trackPhases,
} from '../../bench/schedule-counters.js';
import { SteppedClock } from '../../bench/stepped-clock.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

// The schedules bench counts what reaches the store, by the phase the scheduler is in. These
// check the counting itself on a real LevelDB store and a real scheduler; no figure is asserted.
describe('the schedules bench counters', () => {
  let temp: TempStore | undefined;
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });

  it('counts each LevelDB backend call by kind: reads, range reads, batches', async () => {
    temp = await openTempStore();
    const counter = new PhaseCounter(BACKEND_OPS);
    const { backend } = temp.store;
    countBackend(backend, counter);
    await backend.write([
      { type: 'put', key: 'a', value: '1' },
      { type: 'put', key: 'b', value: '2' },
    ]);
    expect(await backend.get('a')).toBe('1');
    expect(await backend.getMany!(['a', 'b'])).toEqual(['1', '2']);
    const keys: string[] = [];
    for await (const key of backend.keys({ gte: 'a', lt: 'c' })) keys.push(key);
    for await (const _ of backend.iterate({ gte: 'a', lt: 'c' })) keys.push('entry');
    expect(keys).toEqual(['a', 'b', 'entry', 'entry']);
    expect(counter.total('other', 'batch')).toBe(1);
    expect(counter.total('other', 'get')).toBe(1);
    expect(counter.total('other', 'getMany')).toBe(1);
    expect(counter.total('other', 'keys')).toBe(1);
    expect(counter.total('other', 'iterate')).toBe(1);
    expect(counter.total()).toBe(5 + counter.total(undefined, 'getManySync'));
    counter.reset();
    expect(counter.total()).toBe(0);
  });

  it('moves a fake clock from one wake-up to the next, waiting for each sleeper to sleep again', async () => {
    const clock = new SteppedClock(0);
    const woken: number[] = [];
    const stop = new AbortController();
    const loop = (async () => {
      while (!stop.signal.aborted) {
        await clock.sleepUntil(clock.now() + 5000, stop.signal).catch(() => undefined);
        if (!stop.signal.aborted) woken.push(clock.now());
      }
    })();
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.nextWake()).toBe(5000);
    expect(await clock.stepTo(60_000)).toBe(12);
    expect(woken).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) * 5000));
    expect(clock.now()).toBe(60_000);
    stop.abort();
    await loop;
  });

  it("splits a scheduler's store operations by phase when it fires one tick at a time", async () => {
    temp = await openTempStore();
    const { store } = temp;
    const counter = new PhaseCounter(BACKEND_OPS);
    countBackend(store.backend, counter);
    trackPhases(store, counter);
    const clock = new SteppedClock(Date.UTC(2026, 0, 5));
    const schedules = openSchedules(store, { clock });
    for (const i of [0, 1, 2]) {
      await schedules.create({
        id: `s${i}`,
        userId: 'u1',
        cron: '0 1 * * *',
        target: { type: 'message', agent: 'a', sessionId: `t${i}`, text: 'hi', create: true },
      });
    }
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel(() => ({ text: 'Done.' })),
      store,
      clock,
    });
    const slept = clock.nextSleep();
    const scheduler = agent.startScheduler({ schedules: { maxConcurrentTicks: 1 } });
    await slept;
    counter.reset();
    const settled = new Promise<void>((resolve) => {
      counter.onSettle = (n) => {
        if (n === 3) resolve();
      };
    });
    clock.set(Date.UTC(2026, 0, 5, 1));
    await settled;
    await scheduler.stop();
    expect(counter.calls).toMatchObject({ claims: 3, settles: 3, rereads: 0 });
    expect(counter.calls.indexReads).toBeGreaterThanOrEqual(3);
    // Each claim and each settle is one versioned write of the schedule: one batch.
    expect(counter.total('claim', 'batch')).toBe(3);
    expect(counter.total('settle', 'batch')).toBe(3);
    expect(counter.total('index', 'batch')).toBe(0);
    // Each tick's run wrote its session's steps.
    expect(counter.total('run', 'batch')).toBeGreaterThanOrEqual(3);
    for (const i of [0, 1, 2]) {
      const info = await schedules.get(`s${i}`, { userId: 'u1' });
      expect(info.lastTick?.outcome).toBe('started');
    }
  });
});
