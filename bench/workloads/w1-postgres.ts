import { PostgresSessionStore } from '../../src/postgres.js';
import {
  benchAgent,
  timeMessages,
  perMessageFigures,
  type PerMessageFigures,
  userMessage,
  W1_SESSION,
} from '../fixtures.js';
import { emptyTables, recordingPool, replayStatements } from '../postgres-fixtures.js';

/** One run of W1 on PostgreSQL: one session, `messages` messages in sequence. */
export interface W1PostgresRun extends PerMessageFigures {
  messages: number;
  totalMs: number;
  statements: number;
  bytesWritten: number;
  /** The same statements, sent one after another with nothing else. */
  floorMs: number;
  floorRatio: number;
}

/** W1 on PostgreSQL: bytes and time per message flat with the conversation length. */
export async function runW1Postgres(
  url: string,
  messages: number,
  round: number,
): Promise<W1PostgresRun> {
  const schema = `w1_${round}_${messages}`;
  const { pool, statements } = recordingPool(url, 4);
  const store = await PostgresSessionStore.open({ pool, schema });
  statements.length = 0;
  const agent = benchAgent();
  try {
    const { totalMs, times, bytes } = await timeMessages(store, messages, async (i) => {
      const run = await agent.run(userMessage(i), { ...W1_SESSION, store });
      if (run.turns !== 2) throw new Error(`message ${i} took ${run.turns} turn(s), expected 2`);
    });
    await store.close();
    await pool.end();
    await emptyTables(url, schema);
    const floorMs = await replayStatements(url, statements);
    return {
      messages,
      totalMs,
      ...perMessageFigures({ times, bytes }),
      statements: statements.length,
      bytesWritten: store.stats().bytesWritten,
      floorMs,
      floorRatio: totalMs / floorMs,
    };
  } finally {
    if (!pool.ended) await pool.end();
  }
}
