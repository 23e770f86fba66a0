import { join } from 'node:path';
import { LevelSessionStore, suspendSession, type SessionRecord } from '../../src/index.js';
import type { BuiltScripts } from '../built-scripts.js';
import { runNodeScript } from '../child.js';
import { benchAgent, copyDir, tempDir, userMessage } from '../fixtures.js';
import { median } from '../stats.js';

interface Memory {
  rss: number;
  heapUsed: number;
}

/** One run of W4 (bytes). */
export interface W4Run {
  suspended: number;
  active: number;
  /** RSS of a process using a store with `suspended` suspended sessions, minus with none. */
  suspendedRssDelta: number;
  suspendedHeapDelta: number;
  /** Spread (max - min) of RSS between identical probe processes on the empty store. */
  rssNoise: number;
  /** Extra RSS and heap per session while `active` runs are in flight at once. */
  activeRssPerSession: number;
  activeHeapPerSession: number;
  activeRssTotal: number;
  /** Extra RSS and heap per bare session-machine actor (started, idle). */
  actorRssPerActor: number;
  actorHeapPerActor: number;
}

/**
 * Fills a store with `n` suspended sessions, each with one exchange in its history: one made
 * through the runtime (a message, then `suspendSession`), the rest copied from it with
 * `store.create` (the fast path).
 */
export async function fillSuspended(path: string, n: number): Promise<void> {
  const store = await LevelSessionStore.open({ path });
  try {
    const agent = benchAgent();
    const template = { sessionId: 'suspended-template', userId: 'template' };
    await agent.run(userMessage(0), { ...template, store });
    await agent.runtimeFor(store).execute(template, suspendSession());
    const { version: _version, ...record } = await store.load(template);
    const items = await store.readHistory(template);
    if (record.status !== 'suspended') throw new Error(`template is ${record.status}`);
    const snapshotJson = JSON.stringify(record.snapshot);
    const chunk = 200;
    for (let start = 0; start < n; start += chunk) {
      const creates = [];
      for (let i = start; i < Math.min(n, start + chunk); i++) {
        const key = { sessionId: `suspended-${i}`, userId: `user-${i}` };
        const snapshot = JSON.parse(snapshotJson) as { context: Record<string, unknown> };
        snapshot.context.sessionId = key.sessionId;
        snapshot.context.userId = key.userId;
        const copy: Omit<SessionRecord, 'version'> = { ...record, ...key, snapshot };
        creates.push(store.create(copy, items));
      }
      await Promise.all(creates);
    }
  } finally {
    await store.close();
  }
}

/** Opens and closes a store once, so LevelDB folds its write-ahead log into a table. */
async function settle(path: string): Promise<void> {
  const store = await LevelSessionStore.open({ path });
  await store.close();
}

/** The stores W4 reads: one empty, one with `suspended` suspended sessions. Made once. */
export interface W4Stores {
  suspended: number;
  empty: string;
  filled: string;
}

export async function prepareW4Stores(dir: string, suspended: number): Promise<W4Stores> {
  const empty = join(dir, 'empty');
  const filled = join(dir, 'filled');
  await fillSuspended(empty, 0);
  await fillSuspended(filled, suspended);
  await settle(empty);
  await settle(filled);
  return { suspended, empty, filled };
}

/** Probe processes per store and run. */
const PROBE_PAIRS = 3;

/** The child script W4 runs, compiled first (`buildScripts([W4_CHILD])`). */
export const W4_CHILD = 'w4-child.ts';

/**
 * W4, memory, each figure from fresh processes (started with --expose-gc, measured after a
 * full GC): a store holding suspended sessions against an empty one (medians of a few probe
 * processes each, all given the same probe conversation), `active` runs in flight at once,
 * and `active` bare session actors. The children run compiled, with plain `node`, as users run
 * the package (see `built-scripts.ts`; under tsx, its `keepNames` alone added ~7 KB of heap
 * per active session).
 */
export async function runW4(built: BuiltScripts, stores: W4Stores, active: number): Promise<W4Run> {
  const inChild = <T>(mode: string, path: string, n: number): Promise<T> =>
    runNodeScript<T>(built.path(W4_CHILD), [mode, path, String(n)], ['--expose-gc']);
  const dir = await tempDir('agentstate-w4-');
  try {
    let copies = 0;
    const fresh = async (from: string): Promise<string> => {
      const path = join(dir.path, `probe-${copies++}`);
      await copyDir(from, path);
      return path;
    };
    // RSS differs by a few MB between identical processes: pairs of probes, interleaved.
    const withoutRss: number[] = [];
    const withRss: number[] = [];
    const withoutHeap: number[] = [];
    const withHeap: number[] = [];
    for (let pair = 0; pair < PROBE_PAIRS; pair++) {
      const without = await inChild<Memory & { listed: number }>(
        'stored',
        await fresh(stores.empty),
        0,
      );
      const withSessions = await inChild<Memory & { listed: number }>(
        'stored',
        await fresh(stores.filled),
        stores.suspended,
      );
      if (withSessions.listed !== 1 || without.listed !== 0) {
        throw new Error('the filled store does not list its suspended sessions');
      }
      withoutRss.push(without.rss);
      withRss.push(withSessions.rss);
      withoutHeap.push(without.heapUsed);
      withHeap.push(withSessions.heapUsed);
    }
    const inFlight = await inChild<{ before: Memory; during: Memory }>(
      'active',
      join(dir.path, 'active'),
      active,
    );
    const actors = await inChild<{ before: Memory; during: Memory }>(
      'actors',
      join(dir.path, 'actors'),
      active,
    );
    const activeRssTotal = inFlight.during.rss - inFlight.before.rss;
    return {
      suspended: stores.suspended,
      active,
      suspendedRssDelta: median(withRss) - median(withoutRss),
      suspendedHeapDelta: median(withHeap) - median(withoutHeap),
      rssNoise: Math.max(...withoutRss) - Math.min(...withoutRss),
      activeRssPerSession: activeRssTotal / active,
      activeHeapPerSession: (inFlight.during.heapUsed - inFlight.before.heapUsed) / active,
      activeRssTotal,
      actorRssPerActor: (actors.during.rss - actors.before.rss) / active,
      actorHeapPerActor: (actors.during.heapUsed - actors.before.heapUsed) / active,
    };
  } finally {
    await dir.cleanup();
  }
}
