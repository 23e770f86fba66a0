import { join } from 'node:path';
import {
  benchAgent,
  openRecordedStore,
  storedBytes,
  tempDir,
  timeMessages,
  perMessageFigures,
  type PerMessageFigures,
  userMessage,
  W1_SESSION,
} from '../fixtures.js';
import { measureFloor, type Floor } from '../floors.js';
import type { Agent } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { RssSampler } from '../stats.js';

/** One run of W1: one session receives `messages` user messages in sequence. */
export interface W1Run extends PerMessageFigures {
  messages: number;
  totalMs: number;
  bytesWritten: number;
  batches: number;
  /** Logical bytes (keys + values) in the database at the end. */
  bytesStored: number;
  peakRssBytes: number;
  floor: Floor;
  /** Workload time over floor time. */
  floorRatio: number;
}

export interface W1Options {
  messages: number;
  /** Keep the database here (closed) instead of deleting it, e.g. for W3. */
  keepAt?: string | undefined;
  /** The agent that answers. @default benchAgent() */
  agent?: Agent | undefined;
  /**
   * The session in a `MemorySessionStore` instead of LevelDB (no disk; the floor is then the
   * bare XState runs alone). Not with `keepAt`.
   */
  memory?: boolean | undefined;
}

/** W1, one long conversation: T messages to one session, each a tool call and an answer. */
export async function runW1(options: W1Options): Promise<W1Run> {
  const dir = await tempDir('agentstate-w1-');
  const path = options.keepAt ?? join(dir.path, 'db');
  const { store, batches } = options.memory
    ? { store: new MemorySessionStore(), batches: [] }
    : await openRecordedStore(path);
  const agent = options.agent ?? benchAgent();
  let result: Omit<W1Run, 'floor' | 'floorRatio'>;
  try {
    const rss = new RssSampler();
    const { totalMs, times, bytes } = await timeMessages(store, options.messages, async (i) => {
      const run = await agent.run(userMessage(i), { ...W1_SESSION, store });
      if (run.turns !== 2) throw new Error(`message ${i} took ${run.turns} turn(s), expected 2`);
    });
    const peakRssBytes = rss.stop();
    const stats = store.stats();
    result = {
      messages: options.messages,
      totalMs,
      ...perMessageFigures({ times, bytes }),
      bytesWritten: stats.bytesWritten,
      batches: stats.batches,
      bytesStored: store instanceof MemorySessionStore ? 0 : await storedBytes(store),
      peakRssBytes,
    };
  } finally {
    await store.close();
    await dir.cleanup();
  }
  const floor = await measureFloor(batches, options.messages);
  return { ...result, floor, floorRatio: result.totalMs / floor.totalMs };
}
