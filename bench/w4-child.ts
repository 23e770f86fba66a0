/**
 * W4 child, run with --expose-gc, compiled first (`built-scripts.ts`: plain `node`, the package
 * as `npm run build` ships it). Usage: node --expose-gc bench/w4-child.js <mode> <db folder> <n>
 *  - `stored`: opens a store (which may hold suspended sessions), sends one message to a
 *    fresh session, then reports RSS and heap after a full GC. Compared between an empty store
 *    and one with n suspended sessions.
 *  - `active`: n sessions with a run in flight at once (each waiting on the model): RSS and
 *    heap after GC, before and while they are loaded.
 *  - `actors`: n bare session-machine actors, started and held.
 * Prints one JSON line.
 */
import { createActor } from 'xstate';
import { LevelSessionStore } from '../src/index.js';
// Internal: resolves to its own compiled copy next to the bundle (`built-scripts.ts`); bare actors only.
import { sessionMachine } from '../src/machines/session-machine.js';
import { ScriptedModel } from '../src/testing.js';
import { benchAgent, benchScript, userMessage } from './fixtures.js';

const [mode, dir, nArg] = process.argv.slice(2);
const n = Number(nArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !dir || !Number.isInteger(n))
  throw new Error('usage: --expose-gc w4-child.ts <mode> <dir> <n>');

interface Memory {
  rss: number;
  heapUsed: number;
}

async function settledMemory(): Promise<Memory> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/** Resolves once `read()` has stayed the same across a few event-loop turns. */
async function quiet(read: () => number): Promise<void> {
  let last = -1;
  let stable = 0;
  while (stable < 3) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const value = read();
    stable = value === last ? stable + 1 : 0;
    last = value;
  }
}

const store = await LevelSessionStore.open({ path: dir });
const out: Record<string, unknown> = { mode, n };
try {
  if (mode === 'stored') {
    const agent = benchAgent();
    for (let i = 0; i < 50; i++)
      await agent.run(userMessage(i), { sessionId: 'probe', userId: 'probe', store });
    const memory = await settledMemory();
    Object.assign(out, memory, {
      listed: (await store.list({ userId: 'user-1' })).sessions.length,
    });
  } else if (mode === 'active') {
    let arrived = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let blocking = false;
    const model = new ScriptedModel(
      async (request, index) => {
        if (blocking) {
          arrived += 1;
          await gate;
        }
        return benchScript(request, index);
      },
      { recordCalls: false },
    );
    const agent = benchAgent(model);
    // Warm-up: the same code paths, then released.
    for (let i = 0; i < 200; i++)
      await agent.run(userMessage(i), { sessionId: `warm-${i % 20}`, userId: 'warm', store });
    const before = await settledMemory();
    blocking = true;
    const runs = Array.from({ length: n }, (_, i) =>
      agent.run(userMessage(0), { sessionId: `active-${i}`, userId: `user-${i}`, store }),
    );
    while (arrived < n) await new Promise((resolve) => setTimeout(resolve, 5));
    await quiet(() => store.stats().batches);
    const during = await settledMemory();
    blocking = false;
    release();
    const results = await Promise.all(runs);
    if (results.some((r) => r.turns !== 2))
      throw new Error('an active run did not finish in 2 turns');
    Object.assign(out, { before, during });
  } else if (mode === 'actors') {
    const warm = Array.from({ length: 100 }, (_, i) =>
      createActor(sessionMachine(), { input: { sessionId: `w${i}` } }).start(),
    );
    warm.forEach((a) => a.stop());
    const before = await settledMemory();
    const actors = Array.from({ length: n }, (_, i) =>
      createActor(sessionMachine(), { input: { sessionId: `s${i}`, userId: `user-${i}` } }).start(),
    );
    const during = await settledMemory();
    if (actors.some((a) => a.getSnapshot().status !== 'active'))
      throw new Error('an actor is not active');
    actors.forEach((a) => a.stop());
    Object.assign(out, { before, during });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  await store.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
