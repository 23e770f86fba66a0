/**
 * A W5 worker process: `work` runs its share of the W2 workload (sessions [from, to), 3
 * messages each, `concurrency` in flight) on PostgreSQL and records every statement it sends,
 * tagged with the in-flight slot that sent it; `replay` sends those statements again with
 * nothing else (the floor), each slot's in order, the slots concurrently. Both wait for a
 * `go` line on stdin after connecting, and print `{ startedAt, endedAt, messages, statements }`.
 *
 *   node --import tsx bench/w5-child.ts work <url> <schema> <from> <to> <concurrency> <file>
 *   node --import tsx bench/w5-child.ts replay <url> <file>
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { PostgresSessionStore } from '../src/postgres.js';
import { benchAgent, userMessage } from './fixtures.js';
import { recordingPool, replayStatements, type Statement } from './postgres-fixtures.js';

const [mode, url, ...rest] = process.argv.slice(2);
const epoch = (): number => performance.timeOrigin + performance.now();
const go = async (): Promise<void> => {
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === 'go') return;
  }
};

async function work(): Promise<void> {
  const [schema, from, to, concurrency, file] = rest;
  const slotOf = new AsyncLocalStorage<number>();
  const { pool, statements } = recordingPool(
    url!,
    Number(concurrency) + 2,
    () => slotOf.getStore() ?? -1,
  );
  const store = await PostgresSessionStore.open({ pool, schema });
  statements.length = 0; // the schema check is not part of the workload
  const agent = benchAgent();
  let next = Number(from);
  const end = Number(to);
  const worker = async (): Promise<void> => {
    while (next < end) {
      const s = next++;
      const key = { sessionId: `conversation-${s}`, userId: `user-${s}` };
      for (let m = 0; m < 3; m++) {
        const run = await agent.run(userMessage(m), { ...key, store });
        if (run.turns !== 2) throw new Error(`session ${s} message ${m}: ${run.turns} turn(s)`);
      }
    }
  };
  await go();
  const startedAt = epoch();
  const cpu = process.cpuUsage();
  const slots = Math.min(Number(concurrency), end - Number(from));
  await Promise.all(Array.from({ length: slots }, (_, i) => slotOf.run(i, worker)));
  const endedAt = epoch();
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  await store.close();
  await pool.end();
  await writeFile(file!, JSON.stringify(statements));
  const messages = (end - Number(from)) * 3;
  process.stdout.write(
    `${JSON.stringify({ startedAt, endedAt, messages, statements: statements.length, cpuMs })}\n`,
  );
}

async function replay(): Promise<void> {
  const [file] = rest;
  const statements = JSON.parse(await readFile(file!, 'utf8')) as Statement[];
  let startedAt = 0;
  const ms = await replayStatements(url!, statements, async () => {
    await go();
    startedAt = epoch();
  });
  const times = {
    startedAt,
    endedAt: startedAt + ms,
    messages: 0,
    statements: statements.length,
    cpuMs: 0,
  };
  process.stdout.write(`${JSON.stringify(times)}\n`);
}

await (mode === 'work' ? work() : replay());
