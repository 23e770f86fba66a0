/**
 * The schedules bench (issue 44), one store in a fresh process of its own. Usage:
 * schedules-child.ts '<SchedulesTask as JSON>'. Prints one JSON line (`SchedulesChildResult`).
 *
 * On a fake clock (`SteppedClock`) starting Monday 2026-01-05 00:00 UTC:
 *  1. creates `schedules` schedules through `openSchedules(store).create`, 16 at a time: `due`
 *     of them fire at 01:00 UTC, `sequential` at 01:30, the rest not before 02:00 (crons in
 *     UTC and Europe/Berlin, daily intervals, one-time `at`s days ahead);
 *  2. an idle minute (00:10 to 00:11): an agent's scheduler (`schedules: { pollMs }`) moved
 *     through it one wake-up at a time: the process's CPU and the store operations counted; the
 *     floor is the same minute with `schedules: false`;
 *  3. the `due` ticks at 01:00, fired side by side (the defaults): CPU and wall time from the
 *     clock set to the last tick settled, the store operations counted;
 *  4. the run alone: `due` plain `agent.run`s of the same message into new sessions, 16 in
 *     flight (the scheduler's default), timed the same way;
 *  5. the `sequential` ticks at 01:30, one at a time (`maxConcurrentTicks: 1`), the store
 *     operations counted by phase: index read, claim, run, settle (`schedule-counters.ts`);
 *     then as many plain runs one at a time, counted the same way.
 * The model answers at once (one model call, no tool): a tick's run is the least a run is.
 */
import pg from 'pg';
import {
  Agent,
  LevelSessionStore,
  openSchedules,
  type ScheduleInput,
  type SessionStore,
} from '../src/index.js';
import { PostgresSessionStore } from '../src/postgres.js';
import { ScriptedModel } from '../src/testing.js';
import type { ScheduleStore } from '../src/persistence/schedule-store.js';
import { hasSchedules } from '../src/persistence/store-supports.js';
import {
  BACKEND_OPS,
  countBackend,
  countingPool,
  PhaseCounter,
  PHASES,
  trackPhases,
  type Phase,
  type ScheduleCalls,
} from './schedule-counters.js';
import { SteppedClock } from './stepped-clock.js';

/** What the part asks of one child. */
export interface SchedulesTask {
  store: 'level' | 'postgres';
  /** A LevelDB folder, or a PostgreSQL server and the schema to use. */
  where: { path?: string; url?: string; schema?: string };
  schedules: number;
  /** Ticks fired side by side at 01:00. */
  due: number;
  /** Ticks fired one at a time at 01:30 (the split by phase). */
  sequential: number;
  /** The scheduler's `pollMs` in the idle minute. */
  pollMs: number;
  /** Plain runs warming V8 up before anything is measured. */
  warmUpRuns: number;
}

/** Store operations by kind: LevelDB backend calls, or PostgreSQL statements (`statement`). */
export type OpCounts = Record<string, number>;

/** CPU (user + system), wall time and store operations of one stage. */
export interface Stage {
  cpuMs: number;
  wallMs: number;
  ops: OpCounts;
  calls: ScheduleCalls;
}

export interface SchedulesChildResult {
  store: SchedulesTask['store'];
  schedules: number;
  /** Creating them all through `openSchedules(store).create`, 16 at a time. */
  createMs: number;
  idle: Stage & { pollMs: number; wakeUps: number };
  /** The same minute with `schedules: false`. */
  idleFloor: Stage & { wakeUps: number };
  burst: Stage & { ticks: number };
  runAlone: Stage & { runs: number };
  split: { ticks: number; ops: Record<Phase, OpCounts>; calls: ScheduleCalls };
  /** As many plain runs as `split` has ticks, one at a time: their store operations. */
  splitRunAlone: { runs: number; ops: OpCounts };
}

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Monday 2026-01-05 00:00 UTC. */
const T0 = Date.UTC(2026, 0, 5);
const IN_FLIGHT = 16;
const TEXT = 'Check the queue';
const AGENT = 'bench-schedules';

const userOf = (i: number): string => `user-${i % 100}`;

/** Schedule `i` of the layout in the file's comment. */
function scheduleInput(i: number, task: SchedulesTask): ScheduleInput {
  const target = {
    type: 'message' as const,
    agent: AGENT,
    sessionId: `session-${i}`,
    text: TEXT,
    create: true,
  };
  const base = { id: `schedule-${i}`, userId: userOf(i), target };
  if (i < task.due) return { ...base, cron: '0 1 * * *' };
  if (i < task.due + task.sequential) return { ...base, cron: '30 1 * * *' };
  switch (i % 4) {
    case 0:
      return { ...base, cron: `${i % 60} ${3 + (i % 21)} * * *` };
    case 1:
      return { ...base, cron: `${i % 60} ${5 + (i % 18)} * * 1-5`, timezone: 'Europe/Berlin' };
    case 2:
      return { ...base, every: '1d' };
    default:
      return { ...base, at: T0 + (2 + (i % 60)) * 24 * HOUR };
  }
}

/** Runs `work(i)` for i in 0..n-1, `inFlight` at a time. */
async function inParallel(
  n: number,
  inFlight: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, inFlight) }, worker));
}

interface Opened {
  store: SessionStore & ScheduleStore;
  close: () => Promise<void>;
}

/** The store as the bench needs it, or a clear error for one that keeps no schedules. */
function withSchedules(store: SessionStore): Opened['store'] {
  if (!hasSchedules(store)) throw new Error(`${store.constructor.name} keeps no schedules here`);
  return store;
}

async function openStore(task: SchedulesTask, counter: PhaseCounter): Promise<Opened> {
  if (task.store === 'level') {
    const store = await LevelSessionStore.open({ path: task.where.path! });
    countBackend(store.backend, counter);
    return { store: withSchedules(store), close: () => store.close() };
  }
  const raw = new pg.Pool({ connectionString: task.where.url, max: 10 });
  const store = await PostgresSessionStore.open({
    pool: countingPool(raw, counter),
    schema: task.where.schema,
  }).catch(async (error: unknown) => {
    await raw.end();
    throw error;
  });
  const close = async (): Promise<void> => {
    await store.close();
    await raw.end();
  };
  try {
    return { store: withSchedules(store), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Measures `work`: CPU, wall time, and what the counter counted meanwhile (reset first). */
async function stage(counter: PhaseCounter, work: () => Promise<void>): Promise<Stage> {
  counter.reset();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: (used.user + used.system) / 1000,
    wallMs,
    ops: opsOf(counter),
    calls: { ...counter.calls },
  };
}

function opsOf(counter: PhaseCounter, phase?: Phase): OpCounts {
  const kinds = counter.kinds();
  return Object.fromEntries(kinds.map((k) => [k, counter.total(phase, k)]));
}

/** Resolves once `counter` has counted `n` settles. */
function settles(counter: PhaseCounter, n: number): Promise<void> {
  return new Promise((resolve) => {
    counter.onSettle = (count) => {
      if (count >= n) {
        counter.onSettle = undefined;
        resolve();
      }
    };
  });
}

/** Resolves after `turns` turns of the event loop. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function main(task: SchedulesTask): Promise<SchedulesChildResult> {
  const counter = new PhaseCounter(task.store === 'level' ? BACKEND_OPS : ['statement']);
  const clock = new SteppedClock(T0);
  const { store, close } = await openStore(task, counter);
  trackPhases(store, counter);
  const model = new ScriptedModel(() => ({ text: 'Done.' }), { name: 'bench-answer' });
  const agent = new Agent({ name: AGENT, model, store, clock });
  try {
    // 1. The schedules.
    const schedules = openSchedules(store, { clock });
    const started = performance.now();
    await inParallel(task.schedules, IN_FLIGHT, async (i) => {
      await schedules.create(scheduleInput(i, task));
    });
    const createMs = performance.now() - started;
    await inParallel(task.warmUpRuns, IN_FLIGHT, async (i) => {
      await agent.run(TEXT, { sessionId: `warm-${i}`, userId: userOf(i) });
    });

    // 2. The idle minute, then its floor.
    const idleMinute = async (firing: boolean, from: number) => {
      clock.set(from);
      counter.reset();
      const slept = clock.nextSleep();
      const scheduler = agent.startScheduler({
        schedules: firing ? { pollMs: task.pollMs } : false,
      });
      // Its first pass, done before the minute starts: asleep on the clock, or (no schedules,
      // nothing due) waiting for a wake alone.
      if (firing) await slept;
      else {
        while (counter.calls.deadlineReads === 0) await turns(1);
        await turns(20);
      }
      let wakeUps = 0;
      const figures = await stage(counter, async () => {
        wakeUps = await clock.stepTo(from + MINUTE);
      });
      await scheduler.stop();
      return { ...figures, wakeUps };
    };
    const idle = { ...(await idleMinute(true, T0 + 10 * MINUTE)), pollMs: task.pollMs };
    const idleFloor = await idleMinute(false, T0 + 12 * MINUTE);

    // 3. The due ticks at 01:00, side by side.
    clock.set(T0 + HOUR - MINUTE);
    let slept = clock.nextSleep();
    let scheduler = agent.startScheduler({ schedules: { pollMs: task.pollMs } });
    await slept;
    let fired = settles(counter, task.due);
    const burst = await stage(counter, async () => {
      clock.set(T0 + HOUR);
      await fired;
    });
    await scheduler.stop();

    // 4. The run alone, as many, as many in flight.
    const runAlone = await stage(counter, () =>
      inParallel(task.due, IN_FLIGHT, async (i) => {
        await agent.run(TEXT, { sessionId: `alone-${i}`, userId: userOf(i) });
      }),
    );

    // 5. The ticks at 01:30, one at a time: the operations by phase.
    slept = clock.nextSleep();
    scheduler = agent.startScheduler({ schedules: { pollMs: task.pollMs, maxConcurrentTicks: 1 } });
    await slept;
    counter.reset();
    fired = settles(counter, task.sequential);
    clock.set(T0 + HOUR + 30 * MINUTE);
    await fired;
    const split = {
      ticks: task.sequential,
      ops: Object.fromEntries(PHASES.map((p) => [p, opsOf(counter, p)])) as Record<Phase, OpCounts>,
      calls: { ...counter.calls },
    };
    await scheduler.stop();
    const splitRunAlone = await stage(counter, async () => {
      for (let i = 0; i < task.sequential; i++)
        await agent.run(TEXT, { sessionId: `alone-one-${i}`, userId: userOf(i) });
    });

    return {
      store: task.store,
      schedules: task.schedules,
      createMs,
      idle,
      idleFloor,
      burst: { ...burst, ticks: task.due },
      runAlone: { ...runAlone, runs: task.due },
      split,
      splitRunAlone: { runs: task.sequential, ops: splitRunAlone.ops },
    };
  } finally {
    await close();
  }
}

const result = await main(JSON.parse(process.argv[2]!) as SchedulesTask);
process.stdout.write(`${JSON.stringify(result)}\n`);
