/**
 * The workflow bench's timer part (issue 42), in a fresh process of its own, run with
 * --expose-gc. Usage: workflow-timers-child.ts <mode> <n> [<db folder>]
 *  - `xstate`: n plain XState actors of `timer-wait-machine.ts`, started and held live, each
 *    waiting on its timer: the RSS and heap they add, after a full GC.
 *  - `hosted`: n instances of the same machine started by `workflows()` on LevelDB, on a fake
 *    clock, each waiting on its durable timer (due 1 ms apart): the RSS and heap they add, after
 *    a full GC; then the scheduler runs and the clock is set to each due time in turn: the
 *    delay (wall time) from the clock reaching the first instance's due time to its timer's
 *    transition, the time to fire all but the last, and the last one's delay. For reference,
 *    the time to read every instance once (what a scan would at least cost).
 * Prints one JSON line.
 */
import { createActor } from 'xstate';
import { LevelSessionStore, workflows } from '../src/index.js';
import { FakeClock } from '../src/testing.js';
import { WAIT_MS, timerWaitMachine } from './timer-wait-machine.js';

const [mode, nArg, dir] = process.argv.slice(2);
const n = Number(nArg);
/** Instances (or actors) started before measuring, so that V8 compiled the paths first. */
const warmUp = Math.min(500, n);
const gc = (globalThis as { gc?: () => void }).gc;
if (
  !gc ||
  !Number.isInteger(n) ||
  n < 2 ||
  n % 2 !== 0 ||
  !(mode === 'xstate' || (mode === 'hosted' && dir))
)
  throw new Error('usage: --expose-gc workflow-timers-child.ts xstate <n> | hosted <n> <folder>');

/** RSS and heap used after a full GC (a few, with event-loop turns between them). */
async function settledMemory(): Promise<{ rss: number; heapUsed: number }> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

type Memory = Awaited<ReturnType<typeof settledMemory>>;

/**
 * The memory n instances added, and per instance over the second half alone (the first half
 * also pays for what is made once: code compiled, caches filled).
 */
function added(before: Memory, half: Memory, held: Memory): Record<string, number> {
  return {
    rssDelta: held.rss - before.rss,
    heapDelta: held.heapUsed - before.heapUsed,
    rssPerInstance: (held.rss - half.rss) / (n - n / 2),
    heapPerInstance: (held.heapUsed - half.heapUsed) / (n - n / 2),
  };
}

/** Resolves once `read()` has stayed the same across a few event-loop turns. */
async function quiet(read: () => number): Promise<void> {
  let last = -1;
  let stable = 0;
  while (stable < 3) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const value = read();
    stable = value === last ? stable + 1 : 0;
    last = value;
  }
}

/** n plain XState actors held live, each waiting on its (in-memory) timer. */
async function heldActors(): Promise<Record<string, number>> {
  for (let i = 0; i < 200; i++)
    createActor(timerWaitMachine, { input: { order: i } })
      .start()
      .stop();
  const before = await settledMemory();
  const actors: ReturnType<typeof createActor<typeof timerWaitMachine>>[] = [];
  let half = before;
  for (let i = 0; i < n; i++) {
    if (i === n / 2) half = await settledMemory();
    actors.push(createActor(timerWaitMachine, { input: { order: i } }).start());
  }
  const held = await settledMemory();
  const waiting = actors.filter((a) => a.getSnapshot().value === 'waiting').length;
  for (const actor of actors) actor.stop();
  return {
    waiting,
    ...added(before, half, held),
  };
}

/** n hosted instances waiting on durable timers, then fired by the scheduler. */
async function hostedInstances(folder: string): Promise<Record<string, number>> {
  const store = await LevelSessionStore.open({ path: folder });
  const clock = new FakeClock();
  const fired = new Map<number, number>();
  let warmedUp = 0;
  let onFired = (): void => undefined;
  const machine = timerWaitMachine.provide({
    actions: {
      escalate: ({ context }) => {
        if (context.order < 0) warmedUp += 1;
        else fired.set(context.order, performance.now());
        onFired();
      },
    },
  });
  const waits = workflows(machine, { name: 'timer-wait', store, clock });
  const userOf = (i: number): string => `user-${i % 100}`;
  try {
    /** Sets the clock to `at` and resolves once `done()`: the wall time it took. */
    const fireUntil = async (at: number, done: () => boolean): Promise<number> => {
      await quiet(() => clock.pendingSleepers);
      const reached = new Promise<void>((resolve) => {
        onFired = () => {
          if (done()) resolve();
        };
      });
      const t0 = performance.now();
      clock.set(at);
      await reached;
      return performance.now() - t0;
    };
    // Warm-up: the same code paths (instances started, their timers fired), then dropped.
    for (let i = 0; i < warmUp; i++)
      await waits.start(`warm-${i}`, { input: { order: -1 }, userId: 'warm' });
    const warming = waits.startScheduler();
    await fireUntil(clock.now() + WAIT_MS, () => warmedUp === warmUp);
    await warming.stop();
    clock.advance(1);
    const before = await settledMemory();
    const firstDue = clock.now() + WAIT_MS;
    let half = before;
    let started = performance.now();
    for (let i = 0; i < n; i++) {
      if (i === n / 2) {
        const paused = performance.now();
        half = await settledMemory();
        started += performance.now() - paused;
      }
      await waits.start(`order-${i}`, { input: { order: i }, userId: userOf(i) });
      clock.advance(1);
    }
    const startMs = (performance.now() - started) / n;
    const held = await settledMemory();
    started = performance.now();
    for (let i = 0; i < n; i++) await waits.get(`order-${i}`, { userId: userOf(i) });
    const readAllMs = performance.now() - started;

    const scheduler = waits.startScheduler();
    try {
      const firstDelayMs = await fireUntil(firstDue, () => fired.size === 1);
      const restMs = await fireUntil(firstDue + n - 2, () => fired.size === n - 1);
      const lastDelayMs = await fireUntil(firstDue + n - 1, () => fired.size === n);
      if (![...fired.keys()].every((order, i) => order === i))
        throw new Error('the timers fired out of their due order');
      return {
        ...added(before, half, held),
        startMs,
        readAllMs,
        firstDelayMs,
        restMs,
        lastDelayMs,
      };
    } finally {
      await scheduler.stop();
    }
  } finally {
    await waits.close();
    await store.close();
  }
}

const figures = mode === 'xstate' ? await heldActors() : await hostedInstances(dir!);
process.stdout.write(`${JSON.stringify({ mode, n, ...figures })}\n`);
