import { join } from 'node:path';
import type { Agent, Durability } from '../../src/index.js';
import type { BuiltScripts } from '../built-scripts.js';
import { runNodeScript } from '../child.js';
import { MemorySessionStore } from '../../src/testing.js';
import { benchAgent, openRecordedStore, tempDir, userMessage } from '../fixtures.js';
import { measureFloor, type Floor } from '../floors.js';
import { now, RssSampler } from '../stats.js';

/** One run of W2: many sessions, a few messages each, many in flight at once. */
export interface W2Run {
  sessions: number;
  messagesPerSession: number;
  concurrency: number;
  messages: number;
  totalMs: number;
  messagesPerSecond: number;
  bytesWritten: number;
  batches: number;
  peakRssBytes: number;
  /** RSS when the workload started (the process after its warm-up). */
  startRssBytes: number;
  floor: Floor;
  floorRatio: number;
}

/** The child script W2 runs in, compiled first (`buildScripts([W2_CHILD])`). */
export const W2_CHILD = 'w2-child.ts';

export interface W2Options {
  /** @default 1000 */
  sessions?: number;
  /** @default 3 */
  messagesPerSession?: number;
  /** @default 50 */
  concurrency?: number;
  /** The agent that answers. @default benchAgent() */
  agent?: Agent;
  /**
   * Sessions in a `MemorySessionStore` instead of LevelDB: what is left without the disk (the
   * floor is then the bare XState runs alone).
   */
  memory?: boolean;
}

/**
 * W2, many conversations: `concurrency` workers each take the next session and send its
 * messages in sequence, until every session has had its messages. One process, one store. The
 * peak RSS is sampled while the workload runs only (the floor comes after). In this process:
 * the bench's W2 row runs it in a child of its own (`runW2InChild`).
 */
export async function runW2(options: W2Options = {}): Promise<W2Run> {
  const sessions = options.sessions ?? 1000;
  const perSession = options.messagesPerSession ?? 3;
  const concurrency = options.concurrency ?? 50;
  const dir = await tempDir('agentstate-w2-');
  const { store, batches } = options.memory
    ? { store: new MemorySessionStore(), batches: [] }
    : await openRecordedStore(join(dir.path, 'db'));
  const agent = options.agent ?? benchAgent();
  let result: Omit<W2Run, 'floor' | 'floorRatio'>;
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sessions) {
        const s = next++;
        const key = { sessionId: `conversation-${s}`, userId: `user-${s}` };
        for (let m = 0; m < perSession; m++) {
          const run = await agent.run(userMessage(m), { ...key, store });
          if (run.turns !== 2) throw new Error(`session ${s} message ${m}: ${run.turns} turn(s)`);
        }
      }
    };
    const rss = new RssSampler();
    const start = now();
    await Promise.all(Array.from({ length: Math.min(concurrency, sessions) }, worker));
    const totalMs = now() - start;
    const peakRssBytes = rss.stop();
    const stats = store.stats();
    const messages = sessions * perSession;
    result = {
      sessions,
      messagesPerSession: perSession,
      concurrency,
      messages,
      totalMs,
      messagesPerSecond: (messages * 1000) / totalMs,
      bytesWritten: stats.bytesWritten,
      batches: stats.batches,
      peakRssBytes,
      startRssBytes: rss.start,
    };
  } finally {
    await store.close();
    await dir.cleanup();
  }
  const floor = await measureFloor(batches, result.messages);
  return { ...result, floor, floorRatio: result.totalMs / floor.totalMs };
}

/**
 * W2 as users run it: in a fresh process of its own (`w2-child.ts`, compiled against the
 * built package, plain `node`), warmed up with `warmUpMessages` first; its floor is measured
 * in that process too, right after the workload (see the child).
 */
export function runW2InChild(
  built: BuiltScripts,
  options: {
    sessions?: number;
    messagesPerSession?: number;
    concurrency?: number;
    /** A `MemorySessionStore` instead of LevelDB. */
    memory?: boolean;
    /** The agent's durability. @default the agent's default */
    durability?: Durability;
  },
  warmUpMessages: number,
): Promise<W2Run> {
  return runNodeScript<W2Run>(built.path(W2_CHILD), [
    String(options.sessions ?? 1000),
    String(options.messagesPerSession ?? 3),
    String(options.concurrency ?? 50),
    String(warmUpMessages),
    options.memory ? 'memory' : 'level',
    ...(options.durability ? [options.durability] : []),
  ]);
}
