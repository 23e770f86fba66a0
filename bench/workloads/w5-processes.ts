import { join } from 'node:path';
import { PostgresSessionStore } from '../../src/postgres.js';
import { tempDir } from '../fixtures.js';
import { emptyTables, runTogether, sampleWaits, type ProcessTimes } from '../postgres-fixtures.js';

/** W5 at one worker count: the W2 workload split across `workers` processes on one PostgreSQL. */
export interface W5Point {
  workers: number;
  messages: number;
  totalMs: number;
  messagesPerSecond: number;
  statements: number;
  /** The same statements, replayed by the same processes and slots with nothing else. */
  floorMs: number;
  floorMessagesPerSecond: number;
  floorRatio: number;
  /** CPU time of the worker processes per message (ms). */
  workerCpuMsPerMessage: number;
  /** Server backends busy in each state (CPU, or a wait event), on average while it ran. */
  backends: Record<string, number>;
}

export interface W5Options {
  url: string;
  /** @default 1000 */
  sessions?: number;
  /** In flight across all processes (split evenly). @default 48 */
  concurrency?: number;
  /** @default [1, 2, 4] */
  workerCounts?: number[];
}

const wall = (times: ProcessTimes[]): number =>
  Math.max(...times.map((t) => t.endedAt)) - Math.min(...times.map((t) => t.startedAt));

/** W5, scale-out: messages per second with 1, 2 and 4 worker processes, against the floor. */
export async function runW5(options: W5Options, round: number): Promise<W5Point[]> {
  const sessions = options.sessions ?? 1000;
  const concurrency = options.concurrency ?? 48;
  const dir = await tempDir('agentstate-w5-');
  const points: W5Point[] = [];
  try {
    for (const workers of options.workerCounts ?? [1, 2, 4]) {
      const schema = `w5_${round}_${workers}`;
      const store = await PostgresSessionStore.open({ connectionString: options.url, schema });
      await store.close();
      const share = Math.ceil(sessions / workers);
      const files = Array.from({ length: workers }, (_, i) =>
        join(dir.path, `${schema}-${i}.json`),
      );
      const waits = sampleWaits(options.url);
      const work = await runTogether(
        'w5-child.ts',
        files.map((file, i) => [
          'work',
          options.url,
          schema,
          String(i * share),
          String(Math.min(sessions, (i + 1) * share)),
          String(Math.max(1, Math.floor(concurrency / workers))),
          file,
        ]),
      );
      const backends = await waits.stop();
      await emptyTables(options.url, schema);
      const floor = await runTogether(
        'w5-child.ts',
        files.map((file) => ['replay', options.url, file]),
      );
      const messages = work.reduce((n, t) => n + t.messages, 0);
      const totalMs = wall(work);
      const floorMs = wall(floor);
      points.push({
        workers,
        messages,
        totalMs,
        messagesPerSecond: (messages * 1000) / totalMs,
        statements: work.reduce((n, t) => n + t.statements, 0),
        floorMs,
        floorMessagesPerSecond: (messages * 1000) / floorMs,
        floorRatio: totalMs / floorMs,
        workerCpuMsPerMessage: work.reduce((n, t) => n + t.cpuMs, 0) / messages,
        backends,
      });
    }
  } finally {
    await dir.cleanup();
  }
  return points;
}
