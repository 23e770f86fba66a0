/**
 * Child process of test/persistence/postgres/postgres-close.int.test.ts: a script on PostgreSQL that opens its store
 * (from a connection string, the default `listenLingerMs`), runs a message, and awaits
 * `store.close()` as its last step, printing a JSON line before and after it. Exit code 13
 * (a top-level await that never settled) and no `closed` line: `close()` hung.
 * Usage: node --import tsx test/helpers/pg-close-child.ts <url> <schema> <case>
 *
 * Cases: `run` (close right after the run, its LISTEN connection lingering), `watching` (a
 * session watch still open at close), `linger` (a watch started and stopped after the run:
 * close during the linger it left), `restart` (the run's tool waits for a `go` line on stdin,
 * which the test sends once it restarted the server).
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';

const [url, schema, kind] = process.argv.slice(2);
if (!url || !schema || !kind) {
  console.error('usage: pg-close-child.ts <url> <schema> <case>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const wait = tool({
  name: 'wait',
  description: 'Waits for the test',
  parameters: z.object({}),
  execute: async () => {
    const lines = createInterface({ input: process.stdin });
    emit({ event: 'at-tool' });
    await lines[Symbol.asyncIterator]().next();
    lines.close();
    process.stdin.destroy();
    return 'went on';
  },
});
const store = await PostgresSessionStore.open({ connectionString: url, schema });
const agent = new Agent({
  name: 'closing',
  model: new ScriptedModel((_request, call) =>
    kind === 'restart' && call === 0 ? { toolCalls: [{ name: 'wait' }] } : { text: 'hi' },
  ),
  tools: [wait],
  store,
});
const key = { sessionId: 'closing', userId: 'u1' };
const result = await agent.run('one', key);
emit({ event: 'ran', output: result.output });
if (kind === 'watching' || kind === 'linger') {
  const stop = await store.watchSession(
    key,
    () => undefined,
    () => undefined,
  );
  if (kind === 'linger') await stop();
}
await store.close();
emit({ event: 'closed' });
