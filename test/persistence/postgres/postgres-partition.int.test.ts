import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { until } from '../../helpers/async.js';
import { usePostgres } from '../../helpers/postgres-tests.js';
import { TcpProxy } from '../../helpers/tcp-proxy.js';

/**
 * The server stops answering (a partition: packets dropped, not refused). `close()` cannot
 * read a goodbye; past `closeTimeoutMs` it cuts the store's own connections. The bound is a
 * real timer (the socket layer's), kept small here through the option.
 */
const pgt = usePostgres();
const key = { sessionId: 'partition', userId: 'alice' };

/** A promise watched: `done` once it settles (its rejection handled, read from `promise`). */
function settles<T>(promise: Promise<T>) {
  const watched = { promise, done: false };
  promise.then(
    () => (watched.done = true),
    () => (watched.done = true),
  );
  return watched;
}

describe('closing a PostgreSQL store its server stopped answering', () => {
  it('settles within closeTimeoutMs with its connections cut: the statement under way and a later one fail typed', async () => {
    const server = new URL(pgt.url);
    const proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port) });
    const url = new URL(pgt.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const schema = pgt.schema('partition');
    const store = await PostgresSessionStore.open({
      connectionString: url.toString(),
      schema,
      closeTimeoutMs: 100,
    });
    try {
      // Answered through the proxy: the pool holds a connection.
      expect(await store.load(key).catch((error: unknown) => error)).toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
      // The LISTEN connection, open through the proxy too.
      const lost: unknown[] = [];
      await store.watchDecisions(
        () => undefined,
        (error) => lost.push(error),
      );
      proxy.freeze();
      const underWay = settles(store.load(key));
      await until(() => proxy.dropped > 0, 'the statement to be sent (and dropped)');
      const closing = settles(store.close());
      await until(() => closing.done, 'close() to settle');
      await closing.promise;
      expect(lost).toHaveLength(1); // its watcher is told
      // Its pool ended: each of its connections said it closed, the one under way too.
      await until(() => underWay.done, 'the statement under way to fail');
      expect(await underWay.promise.catch((error: unknown) => error)).toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      expect(await store.load(key).catch((error: unknown) => error)).toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
    } finally {
      await proxy.close();
      await pgt.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });

  it('a statement that asked for a connection in the same tick as the close fails typed, never left waiting', async () => {
    const schema = pgt.schema('same_tick');
    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    try {
      const asked = settles(store.load(key));
      await store.close();
      await until(() => asked.done, 'the statement to settle');
      expect(await asked.promise.catch((error: unknown) => error)).toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
    } finally {
      await pgt.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });

  it('closeTimeoutMs is a positive integer', () => {
    const open = (closeTimeoutMs: number) =>
      new PostgresSessionStore({ pool: pgt.pool, closeTimeoutMs });
    expect(() => open(0)).toThrow(/closeTimeoutMs/);
    expect(() => open(1.5)).toThrow(/closeTimeoutMs/);
  });
});
