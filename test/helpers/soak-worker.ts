/**
 * Child process of test/persistence/postgres/postgres-soak.int.test.ts: a worker serving sessions from PostgreSQL.
 * Usage: node --import tsx test/helpers/soak-worker.ts <url> <schema> <owner> <logDir>
 * Command: ensure {id, sessionId, index}: brings the session to having answered message
 * `index` (idempotent: it resumes a run a killed worker left in flight, approves a call that
 * waits, and sends the message only if the history does not hold it yet). Commands run
 * concurrently; each ends with `done {id}` or `failed {id, code, message}`.
 */
import { createInterface } from 'node:readline';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ensureAnswered, soakAgent } from './soak-agent.js';

const [url, schema, owner, logDir] = process.argv.slice(2);
if (!url || !schema || !owner || !logDir) {
  console.error('usage: soak-worker.ts <url> <schema> <owner> <logDir>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const store = await PostgresSessionStore.open({ connectionString: url, schema, poolSize: 8 });
const agent = soakAgent(store, logDir, owner);

emit({ event: 'ready', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { id, sessionId, index } = JSON.parse(line) as {
    id: number;
    sessionId: string;
    index: number;
  };
  ensureAnswered(agent, store, sessionId, index).then(
    () => emit({ event: 'done', id, sessionId, index }),
    (error: unknown) =>
      emit({
        event: 'failed',
        id,
        sessionId,
        index,
        code: (error as { code?: unknown }).code,
        message: String(error),
      }),
  );
}
