import { join } from 'node:path';
import type { Agent } from '../../src/index.js';
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
  floor: Floor;
  floorRatio: number;
}

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
 * messages in sequence, until every session has had its messages. One process, one store.
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
    };
  } finally {
    await store.close();
    await dir.cleanup();
  }
  const floor = await measureFloor(batches, result.messages);
  return { ...result, floor, floorRatio: result.totalMs / floor.totalMs };
}
