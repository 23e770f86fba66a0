/**
 * Child process of test/persistence/postgres/postgres-cancel.int.test.ts and test/cli/cli-cancel-live.int.test.ts: one process of an app on PostgreSQL whose
 * triage agent hands an order to a billing sub-agent whose lookup waits on its signal. Reads
 * JSON commands from stdin, prints JSON events. Its clock is a FakeClock nobody advances, so
 * the runtime's inbox poll never fires: only a notification can bring a cancel in.
 * Usage: node --import tsx test/helpers/pg-cancel-worker.ts <url> <schema> <owner>
 *
 * Commands: run {sessionId} (emits `tool-started`, then `tool-aborted` when the lookup's
 * signal aborts, then `run-ended` with the error's name) | cancel {sessionId, by} (emits
 * `cancel-recorded`).
 */
import { createInterface } from 'node:readline';
import { PostgresSessionStore } from '../../src/postgres.js';
import { FakeClock } from '../../src/testing.js';
import { blockingLookup } from './blocking-lookup.js';
import { triageWithBilling } from './sub-agent-fixtures.js';

const [url, schema, owner] = process.argv.slice(2);
if (!url || !schema || !owner) {
  console.error('usage: pg-cancel-worker.ts <url> <schema> <owner>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const store = await PostgresSessionStore.open({ connectionString: url, schema, poolSize: 4 });
const { lookup } = blockingLookup({
  start: () => emit({ event: 'tool-started', pid: process.pid }),
  end: (aborted) => emit({ event: 'tool-aborted', aborted }),
});
const { triage } = triageWithBilling({
  store,
  billing: { tools: [lookup] },
  triage: { clock: new FakeClock(), lease: { owner, ttlMs: 30_000 } },
});
const userId = 'u1';

interface Command {
  cmd: string;
  sessionId: string;
  by?: string;
}

function handle(command: Command): Promise<void> {
  const { sessionId } = command;
  if (command.cmd === 'run') {
    triage.run('where is order 2?', { sessionId, userId }).then(
      () => emit({ event: 'run-ended', name: 'completed' }),
      (error: unknown) => emit({ event: 'run-ended', name: (error as Error).name }),
    );
    return Promise.resolve();
  }
  return triage
    .cancel(sessionId, { userId, by: command.by })
    .then(() => emit({ event: 'cancel-recorded', pid: process.pid }));
}

emit({ event: 'ready', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) {
    await handle(JSON.parse(line) as Command).catch((error: unknown) =>
      emit({ event: 'failed', name: (error as Error).name, message: (error as Error).message }),
    );
  }
}
