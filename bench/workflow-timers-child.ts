/**
 * The workflow bench's timer part (issue 42), in a fresh process of its own, run with
 * --expose-gc. Usage: workflow-timers-child.ts <mode> <n> [<folder>]
 *  - `xstate`: n plain XState actors of `timer-wait-machine.ts`, started and held live, each
 *    waiting on its timer: the RSS and heap they add, after a full GC.
 * Prints one JSON line.
 */
import { createActor } from 'xstate';
import { timerWaitMachine } from './timer-wait-machine.js';

const [mode, nArg] = process.argv.slice(2);
const n = Number(nArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !Number.isInteger(n) || mode !== 'xstate')
  throw new Error('usage: --expose-gc workflow-timers-child.ts xstate <n>');

/** RSS and heap used after a full GC (a few, with event-loop turns between them). */
async function settledMemory(): Promise<{ rss: number; heapUsed: number }> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

// Warm-up: the same code paths, then dropped.
for (let i = 0; i < 200; i++)
  createActor(timerWaitMachine, { input: { order: i } })
    .start()
    .stop();
const before = await settledMemory();
const actors: ReturnType<typeof createActor<typeof timerWaitMachine>>[] = [];
for (let i = 0; i < n; i++)
  actors.push(createActor(timerWaitMachine, { input: { order: i } }).start());
const held = await settledMemory();
const waiting = actors.filter((a) => a.getSnapshot().value === 'waiting').length;
for (const actor of actors) actor.stop();
process.stdout.write(
  `${JSON.stringify({ n, waiting, rssDelta: held.rss - before.rss, heapDelta: held.heapUsed - before.heapUsed, rss: held.rss })}\n`,
);
