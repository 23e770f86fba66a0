/**
 * Child process of test/persistence/postgres/notifications/postgres-listen-linger.int.test.ts: a script that runs messages on
 * PostgreSQL and ends without closing its store (nor its pool, which the store created). It
 * must exit on its own: neither the pool's idle connections nor the store's lingering LISTEN
 * connection (nor its linger's timer) may keep it alive. When nothing is left to do
 * (`beforeExit`) it prints how many backends LISTEN on its store's channels then: 1, the
 * lingering connection, open but not holding the process.
 * Usage: node --import tsx test/helpers/pg-unclosed-child.ts <url> <schema>
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Agent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';

const [url, schema] = process.argv.slice(2);
if (!url || !schema) {
  console.error('usage: pg-unclosed-child.ts <url> <schema>');
  process.exit(2);
}
const store = await PostgresSessionStore.open({ connectionString: url, schema, poolSize: 2 });
const agent = new Agent({
  name: 'unclosed',
  model: new ScriptedModel(() => ({ text: 'hi' })),
  store,
});
for (const text of ['one', 'two']) {
  const result = await agent.run(text, { sessionId: 'unclosed', userId: 'u1' });
  process.stdout.write(`${JSON.stringify({ event: 'run-done', output: result.output })}\n`);
}
// No `store.close()`: the process ends when nothing is left to do.
const channel = `agentstate_${createHash('sha1').update(schema).digest('hex').slice(0, 24)}`;
let told = false;
process.on('beforeExit', () => {
  if (told) return;
  told = true;
  const client = new pg.Client({ connectionString: url });
  void client
    .connect()
    .then(() =>
      client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1`,
        [`LISTEN "${channel}"%`],
      ),
    )
    .then(({ rows }) => {
      process.stdout.write(`${JSON.stringify({ event: 'idle', listening: rows[0]!.n })}\n`);
      return client.end();
    });
});
