import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent, RunCancelledError } from '../../../../src/index.js';
import { PostgresSessionStore } from '../../../../src/postgres.js';
import { ScriptedModel } from '../../../../src/models/scripted-model.js';
import { newSession } from '../../../../src/store-contract/contract-fixtures.js';
import { FakeClock } from '../../../../src/testing.js';
import { until } from '../../../helpers/async.js';
import { blockingLookup } from '../../../helpers/blocking-lookup.js';
import { runScript } from '../../../helpers/child-process.js';
import { countingPool } from '../../../helpers/counting-pool.js';
import { usePostgres } from '../../../helpers/postgres-tests.js';
import { usePostgresCancel } from '../../../helpers/postgres-cancel-setup.js';
import { triageWithBilling } from '../../../helpers/sub-agent-fixtures.js';

/**
 * Issue 28 (W1 on PostgreSQL): a runtime's runs one after another share the store's LISTEN
 * connection, which lingers, idle, between them (its socket and timer unref'd), instead of a
 * new backend per run; the cancel watch, listening meanwhile, reads the inbox only when it may
 * hold something unread. A cancel still reaches a run at once, and a script that never
 * closes its store still exits.
 */
const pgt = usePostgres();
const { cleanups, listeners } = usePostgresCancel(pgt);

describe('the store LISTEN connection lingers between runs (PostgreSQL)', () => {
  it('runs one after another on one runtime reuse one LISTEN connection and read the decision inbox once', async () => {
    const own = new pg.Pool({ connectionString: pgt.url, max: 2 });
    const { pool, statements } = countingPool(own);
    const schema = pgt.schema('linger');
    const store = await PostgresSessionStore.open({ pool, schema });
    cleanups.push(async () => {
      await store.close();
      await pool.end();
    });
    const agent = new Agent({ name: 'w1', model: new ScriptedModel(() => ({ text: 'hi' })) });
    const key = { sessionId: 'w1', userId: 'u1' };
    const pids = new Set<number>();
    const before = await listeners();
    statements.length = 0;
    for (let i = 0; i < 5; i++) {
      await agent.run(`message ${i}`, { ...key, store });
      for (const pid of await listeners()) if (!before.includes(pid)) pids.add(pid);
    }
    // One backend for the five runs (before: one opened and closed per run).
    expect(pids.size).toBe(1);
    // The inbox read when the subscription was new, not at each run (before: five).
    const inboxReads = statements.filter((s) =>
      /^SELECT .* FROM .*agentstate_decisions/s.test(s.text),
    );
    expect(inboxReads).toHaveLength(1);
    // store.close() ends it at once, idle as it is.
    await store.close();
    const [pid] = pids;
    await until(async () => !(await listeners()).includes(pid!), 'the connection to end');
  });

  it('a cancel from another store object reaches each of the runs one after another at once, by notification', async () => {
    const fresh = await pgt.freshStore('lingercancel');
    cleanups.push(fresh.cleanup);
    const other = await PostgresSessionStore.open({ pool: pgt.pool, schema: fresh.schema });
    cleanups.push(() => other.close());
    const clock = new FakeClock(); // stands still: no poll, only notifications
    let started = 0;
    const { lookup, aborted } = blockingLookup({ start: () => (started += 1) });
    const { triage: runner } = triageWithBilling({
      store: fresh.store,
      billing: { tools: [lookup] },
      triage: { clock, lease: { owner: 'runner', ttlMs: 30_000 } },
    });
    const { triage: api } = triageWithBilling({ store: other, triage: { clock } });
    const before = await listeners();
    const heardBy = new Set<number>();
    for (let i = 1; i <= 3; i++) {
      const key = { sessionId: `s${i}`, userId: 'u1' };
      const run = runner.run('where is order 2?', key).catch((e: unknown) => e);
      await until(() => started === i, 'the run to call its tool');
      await until(
        async () => (await listeners()).some((pid) => !before.includes(pid)),
        'the runner to listen',
      );
      for (const pid of await listeners()) if (!before.includes(pid)) heardBy.add(pid);
      await api.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
      expect(await run).toBeInstanceOf(RunCancelledError);
    }
    expect(aborted).toEqual([true, true, true]);
    expect(heardBy.size).toBe(1); // the three runs on one connection
  });

  it('a script that runs messages and never closes its store exits on its own, its LISTEN connection lingering unheld', async () => {
    const schema = pgt.schema('unclosed');
    const child = await runScript('test/helpers/pg-unclosed-child.ts', [pgt.url, schema]);
    expect(child.stderr).toBe('');
    expect(
      child.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { event: 'run-done', output: 'hi' },
      { event: 'run-done', output: 'hi' },
      // Nothing left to do while its LISTEN connection was open: it held nothing.
      { event: 'idle', listening: 1 },
    ]);
    expect(child).toMatchObject({ code: 0, signal: null });
    await pgt.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  });
});

describe("the store's listenLingerMs option (PostgreSQL)", () => {
  // The linger's timer is a real timer (unref'd): these tests fake `setTimeout` alone, once the
  // LISTEN connection is open, so a linger ends only when the test moves the time on. The
  // store's pool sets no timer of its own (no idle timeout): the only timer is the linger's.
  afterEach(() => {
    vi.useRealTimers();
  });
  const key = { sessionId: 'watched', userId: 'u1' };
  const noop = (): void => undefined;

  /** A store with `listenLingerMs`, a session, a watch of it: the LISTEN backend it opened. */
  async function watching(prefix: string, listenLingerMs: number) {
    const pool = new pg.Pool({ connectionString: pgt.url, max: 2, idleTimeoutMillis: 0 });
    const schema = pgt.schema(prefix);
    const store = await PostgresSessionStore.open({ pool, schema, listenLingerMs });
    cleanups.push(async () => {
      vi.useRealTimers();
      await store.close();
      await pool.end();
    });
    await store.create(newSession(key.sessionId, key.userId));
    const before = await listeners();
    const stop = await store.watchSession(key, noop, noop);
    const pids = (await listeners()).filter((pid) => !before.includes(pid));
    expect(pids).toHaveLength(1);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    /** Whether the backend is still there (asked on the store's pool: it sets no timer). */
    const open = async (): Promise<boolean> => {
      const { rows } = await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', pids);
      return rows.length === 1;
    };
    return { stop, open };
  }

  it('0 ends the LISTEN connection as its last watcher leaves, with no timer', async () => {
    const { stop, open } = await watching('linger0', 0);
    await stop();
    expect(vi.getTimerCount()).toBe(0);
    await until(async () => !(await open()), 'the connection to end');
  });

  it('a custom linger keeps it open that long after its last watcher leaves, then ends it', async () => {
    const { stop, open } = await watching('linger60', 60_000);
    await stop();
    expect(vi.getTimerCount()).toBe(1); // the linger
    vi.advanceTimersByTime(59_999);
    expect(await open()).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(vi.getTimerCount()).toBe(0);
    await until(async () => !(await open()), 'the connection to end after 60 s');
  });

  it('a bad value is a TypeError naming the option, and opens nothing', async () => {
    const pool = new pg.Pool({ connectionString: pgt.url, max: 1 });
    cleanups.push(() => pool.end());
    const schema = pgt.schema('badlinger');
    for (const [listenLingerMs, told] of [
      [-1, '-1'],
      [1.5, '1.5'],
      [Number.NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [2 ** 31, '2147483648'], // past a timer's limit: it would fire at once
      ['10000', '"10000"'],
    ] as const) {
      const error = await PostgresSessionStore.open({
        pool,
        schema,
        listenLingerMs: listenLingerMs as number,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(
        `new PostgresSessionStore(): option "listenLingerMs" must be an integer from 0 to 2147483647, got ${told}`,
      );
    }
    // No connection taken, no schema made.
    expect(pool.totalCount).toBe(0);
    const { rows } = await pgt.pool.query(
      'SELECT 1 FROM information_schema.schemata WHERE schema_name = $1',
      [schema],
    );
    expect(rows).toEqual([]);
  });
});
