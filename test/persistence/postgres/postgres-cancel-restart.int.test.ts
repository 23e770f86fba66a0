import { afterEach, describe, expect, it } from 'vitest';
import { RunCancelledError } from '../../../src/index.js';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { FakeClock } from '../../../src/testing.js';
import { until } from '../../helpers/async.js';
import { blockingLookup } from '../../helpers/blocking-lookup.js';
import { useOwnPostgres } from '../../helpers/postgres-tests.js';
import { triageWithBilling } from '../../helpers/sub-agent-fixtures.js';

/**
 * Issue 40: a cancel made after a PostgreSQL restart reaches the run another store object
 * executes as it did before it (by notification), not at the runtime's next lease renewal:
 * its LISTEN connection, lost with the server, is had again at once, and again after a short
 * wait on the runtime's clock while the server is down; each new one reads the inbox, so a
 * request recorded while nobody listened is applied. The runtimes' clocks are FakeClocks
 * advanced by the test only: the lease renewal (every 10 s of them) never comes.
 */
const pgt = useOwnPostgres();
const key = { sessionId: 'order', userId: 'u1' };
const lease = { owner: 'runner', ttlMs: 30_000 };

describe('a cancel after a PostgreSQL restart (own server)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let down = false;
  afterEach(async () => {
    if (down) pgt.cluster.startServer(); // a test that failed with the server stopped
    down = false;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The LISTENing backends; a pooled connection the restart ended is retried. */
  const listeners = async (): Promise<number[] | undefined> =>
    pgt.listeners().catch(() => undefined);

  /** A runner executing a run whose tool waits, and another store object to cancel it. */
  async function running(prefix: string) {
    const fresh = await pgt.freshStore(prefix);
    cleanups.push(fresh.cleanup);
    const other = await PostgresSessionStore.open({
      connectionString: pgt.url,
      schema: fresh.schema,
    });
    cleanups.push(() => other.close());
    const clock = new FakeClock();
    const { lookup, started, aborted } = blockingLookup();
    const { triage: runner } = triageWithBilling({
      store: fresh.store,
      billing: { tools: [lookup] },
      triage: { clock, lease },
    });
    const { triage: api } = triageWithBilling({ store: other, triage: { clock } });
    const run = runner.run('where is order 2?', key).catch((error: unknown) => error);
    await started.promise;
    let before: number[] = [];
    await until(
      async () => (before = (await listeners()) ?? []).length === 1,
      'the runner to listen',
    );
    const cancel = async (): Promise<void> => {
      // The other store's pooled connections ended with the server: the first try may fail.
      for (let tries = 0; ; tries++) {
        try {
          return await api.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
        } catch (error) {
          if (tries > 2) throw error;
        }
      }
    };
    const summaries = async (): Promise<string[]> => {
      const { entries } = await other.readAudit({ ...key, kind: 'session', limit: 100 });
      return entries.filter((e) => e.action === 'cancelRun').map((e) => e.summary);
    };
    return { clock, run, aborted, listening: before[0]!, cancel, summaries };
  }

  it('the LISTEN connection is had again at once after a restart, and a cancel then arrives by notification', async () => {
    const { clock, run, aborted, listening, cancel, summaries } = await running('restart');
    const at = clock.now();
    await pgt.cluster.restart();
    await until(async () => {
      const now = await listeners();
      return now?.length === 1 && now[0] !== listening;
    }, 'the runner to listen again');
    await cancel();
    expect(await run).toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    expect(clock.now()).toBe(at); // no renewal, no wait: the notification
    expect(await summaries()).toEqual(['run cancelled by ops through the inbox (notification)']);
  });

  it('a cancel recorded while the server was down is read when the LISTEN connection is had again', async () => {
    const { clock, run, aborted, cancel, summaries } = await running('down');
    const waits = clock.pendingSleepers; // the lease renewal's
    down = true;
    pgt.cluster.stopServer();
    // Lost, and not had again at once (the server is down): it waits to try again.
    await until(() => clock.pendingSleepers > waits, 'the runner to wait before listening again');
    pgt.cluster.startServer();
    down = false;
    await cancel(); // recorded and notified: nobody listens
    expect(aborted).toEqual([]);
    clock.advance(250); // its first wait, far short of the lease renewal (10 s)
    expect(await run).toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    expect(await summaries()).toEqual(['run cancelled by ops through the inbox (poll)']);
    expect((await listeners())?.length).toBe(1);
  });
});
