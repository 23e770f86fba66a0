import { Agent, openSchedules, type SessionStore } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';

/** Saturday 2027-03-20 10:00 UTC: Berlin goes to summer time on Sunday the 28th. */
export const SCHEDULE_T0 = Date.UTC(2027, 2, 20, 10);

/** Monday 2027-03-22 09:00 in Berlin, the first tick of `0 9 * * 1` there after T0. */
export const FIRST_MONDAY = Date.UTC(2027, 2, 22, 8);

/** The model of agent `digest`: it answers, except to a message asking it to fail. */
export function digestModel(): ScriptedModel {
  return new ScriptedModel((request) => {
    const last = request.items.at(-1);
    const text = last?.type === 'message' && typeof last.content === 'string' ? last.content : '';
    if (text.includes('fail')) throw new TypeError('the digest service is down');
    return { text: 'digest sent' };
  });
}

/**
 * In `store`, on a clock at {@link SCHEDULE_T0}: alice's sessions `weekly` and `daily` and bob's
 * `b1` (agent `digest`), and their schedules: alice's `weekly` (Mondays 9:00 in Berlin, into
 * `weekly`), `daily` (8:00 UTC daily, catch-up none: its message makes the model fail), `check` (every 15
 * minutes, an event to workflow `orders`' instance `order-7`), bob's `bobs`. Then a real
 * scheduler of agent `digest` fires Monday's ticks: `weekly`'s run completes, `daily`'s fails.
 */
export async function firedSchedules(store: SessionStore) {
  const clock = new FakeClock(SCHEDULE_T0);
  const agent = new Agent({ name: 'digest', model: digestModel(), store, clock });
  await agent.run('hello', { sessionId: 'weekly', userId: 'alice' });
  await agent.run('hello', { sessionId: 'daily', userId: 'alice' });
  await agent.run('hello from bob', { sessionId: 'b1', userId: 'bob' });
  const schedules = openSchedules(store, { clock });
  await schedules.create({
    id: 'weekly',
    userId: 'alice',
    cron: '0 9 * * 1',
    timezone: 'Europe/Berlin',
    description: 'Monday digest',
    target: { type: 'message', agent: 'digest', sessionId: 'weekly', text: 'Send the digest' },
  });
  await schedules.create({
    id: 'daily',
    userId: 'alice',
    cron: '0 8 * * *',
    target: { type: 'message', agent: 'digest', sessionId: 'daily', text: 'Please fail' },
    catchUp: 'none',
  });
  await schedules.create({
    id: 'check',
    userId: 'alice',
    every: '15m',
    from: FIRST_MONDAY + 60_000,
    target: { type: 'event', workflow: 'orders', instanceId: 'order-7', event: { type: 'CHECK' } },
  });
  await schedules.create({
    id: 'bobs',
    userId: 'bob',
    every: '1h',
    target: { type: 'message', agent: 'digest', sessionId: 'b1', text: 'bob secret plan' },
  });
  clock.set(FIRST_MONDAY - 1000);
  const scheduler = agent.startScheduler();
  try {
    while (clock.pendingSleepers === 0) await new Promise((r) => setImmediate(r));
    clock.set(FIRST_MONDAY);
    for (;;) {
      const page = await schedules.list({ userId: 'alice' });
      const fired = page.schedules.filter((s) => s.lastTick !== undefined && !s.firing.length);
      if (fired.length >= 2) break;
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    await scheduler.stop();
  }
  return { clock, agent, schedules };
}
