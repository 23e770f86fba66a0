/**
 * Child process of test/persistence/postgres/postgres-terminated.int.test.ts: a store on PostgreSQL whose backends the
 * test ends with `pg_terminate_backend`. It handles no 'uncaughtException' nor
 * 'unhandledRejection': an error that escapes ends it with code 1 (and its stack on stderr),
 * so the test's check of its exit code and stderr is the check that nothing escaped.
 * Its connections carry the application name given, so the test finds its backends.
 * Usage: node --import tsx test/helpers/pg-terminated-child.ts <url> <schema> <app> <pool>
 * `pool`: `own` (the store makes its pool from the connection string) or `caller` (a pool the
 * script makes and hands over, with no 'error' listener of its own, as pg's README starts).
 *
 * Commands (JSON lines on stdin): open (emits `opened`, or `failed` with the error's code),
 * query (loads the session: `ok`, or `failed` with the code), watch (watches the session:
 * `watching`; `watch-lost` when its connection is lost), close (closes the store and the
 * script's pool: `closed`; the process then exits on its own).
 */
import { createInterface } from 'node:readline';
import pg from 'pg';
import { PostgresSessionStore } from '../../src/postgres.js';
import { newSession } from '../../src/store-contract/contract-fixtures.js';

const [url, schema, app, poolKind] = process.argv.slice(2);
if (!url || !schema || !app || (poolKind !== 'own' && poolKind !== 'caller')) {
  console.error('usage: pg-terminated-child.ts <url> <schema> <app> <own|caller>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const named = new URL(url);
named.searchParams.set('application_name', app);
const connectionString = named.toString();
const pool = poolKind === 'caller' ? new pg.Pool({ connectionString, max: 2 }) : undefined;
const key = { sessionId: 'terminated', userId: 'u1' };
let store: PostgresSessionStore | undefined;
const code = (error: unknown): unknown => (error as { code?: unknown }).code ?? String(error);

async function handle(cmd: string): Promise<void> {
  if (cmd === 'open') {
    try {
      store = await PostgresSessionStore.open(
        pool ? { pool, schema } : { connectionString, schema, poolSize: 2 },
      );
      await store.load(key).catch(() => store!.create(newSession(key.sessionId, key.userId)));
      emit({ event: 'opened' });
    } catch (error) {
      store = undefined;
      emit({ event: 'failed', code: code(error) });
    }
  } else if (cmd === 'query') {
    await store!.load(key).then(
      (record) => emit({ event: 'ok', version: record.version }),
      (error: unknown) => emit({ event: 'failed', code: code(error) }),
    );
  } else if (cmd === 'watch') {
    await store!.watchSession(
      key,
      () => undefined,
      () => emit({ event: 'watch-lost' }),
    );
    emit({ event: 'watching' });
  } else if (cmd === 'close') {
    await store?.close();
    await pool?.end();
    emit({ event: 'closed' });
  }
}

emit({ event: 'ready' });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { cmd } = JSON.parse(line) as { cmd: string };
  await handle(cmd);
  if (cmd === 'close') break;
}
process.stdin.destroy();
