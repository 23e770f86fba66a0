import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/async.js';
import { JsonLineChild } from '../../helpers/json-line-child.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/**
 * Issue 40: a connection the server ends ("terminating connection due to administrator
 * command": a restart, a failover, `pg_terminate_backend`) never becomes an uncaught
 * exception, wherever the store holds it: a pooled connection idle or mid-query (the store's
 * own pool, and a caller's pool with no 'error' listener), its LISTEN connection, the
 * connection migrating its schema. Each case ends a real backend of a child process
 * (test/helpers/pg-terminated-child.ts, which handles no uncaught error: one ends it with code
 * 1), checks that the store's next operation succeeds or fails with the typed
 * `STORE_UNAVAILABLE` and then recovers, and that the child closes and exits with code 0.
 */
const pgt = usePostgres();
let apps = 0;

/** The backends of the child named `app`: its LISTEN connection, or the others. */
async function backends(app: string, kind: 'listen' | 'pool' | 'waiting'): Promise<number[]> {
  const where = {
    listen: "query LIKE 'LISTEN %'",
    pool: "query NOT LIKE 'LISTEN %'",
    waiting: "wait_event_type = 'Lock'",
  }[kind];
  const { rows } = await pgt.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND ${where}`,
    [app],
  );
  return rows.map((r) => r.pid);
}

async function terminate(pids: number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  await pgt.pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
}

describe.each(['own', 'caller'] as const)(
  'a connection the server ends is never uncaught (%s pool)',
  (poolKind) => {
    const children: JsonLineChild[] = [];
    const held: pg.PoolClient[] = [];
    afterEach(async () => {
      for (const client of held.splice(0)) {
        await client.query('ROLLBACK');
        client.release();
      }
      for (const child of children.splice(0)) await child.stop();
    });

    /** A child on a fresh schema, its store not yet opened. */
    async function child(): Promise<{ child: JsonLineChild; app: string; schema: string }> {
      const app = `terminated_${process.pid}_${++apps}`;
      const schema = pgt.schema(`terminated_${poolKind}`);
      const started = await JsonLineChild.start('test/helpers/pg-terminated-child.ts', [
        pgt.url,
        schema,
        app,
        poolKind,
      ]);
      children.push(started);
      expect(await started.next('ready')).toEqual({ event: 'ready' });
      return { child: started, app, schema };
    }

    /** Another connection holding `statement`'s lock in an open transaction. */
    async function hold(statement: string): Promise<void> {
      const client = await pgt.pool.connect();
      held.push(client);
      await client.query('BEGIN');
      await client.query(statement);
    }

    async function release(): Promise<void> {
      for (const client of held.splice(0)) {
        await client.query('ROLLBACK');
        client.release();
      }
    }

    /** The child's next query: ok, or the typed error and then ok. */
    async function queriesAgain(c: JsonLineChild): Promise<void> {
      c.send('query');
      const first = await c.next('ok', 'failed');
      if (first.event === 'failed') {
        expect(first).toEqual({ event: 'failed', code: 'STORE_UNAVAILABLE' });
        c.send('query');
        expect(await c.next('ok', 'failed')).toEqual({ event: 'ok', version: 1 });
      } else {
        expect(first).toEqual({ event: 'ok', version: 1 });
      }
    }

    /** Closes the child's store; it prints `closed` and exits with code 0, nothing on stderr. */
    async function closesCleanly(c: JsonLineChild): Promise<void> {
      c.send('close');
      expect(await c.next('closed')).toEqual({ event: 'closed' });
      expect(await c.exitCode()).toBe(0);
      expect(c.stderrText).toBe('');
    }

    it('a pooled connection ended while idle', async () => {
      const { child: c, app } = await child();
      c.send('open');
      expect(await c.next('opened', 'failed')).toEqual({ event: 'opened' });
      const idle = await backends(app, 'pool');
      await terminate(idle);
      await until(async () => (await backends(app, 'pool')).length === 0, 'the backends to end');
      await queriesAgain(c);
      await closesCleanly(c);
    });

    it('a pooled connection ended mid-query: the query fails typed, the next one succeeds', async () => {
      const { child: c, app, schema } = await child();
      c.send('open');
      expect(await c.next('opened', 'failed')).toEqual({ event: 'opened' });
      await hold(`LOCK TABLE "${schema}".agentstate_sessions IN ACCESS EXCLUSIVE MODE`);
      c.send('query');
      await until(async () => (await backends(app, 'waiting')).length === 1, 'the query to wait');
      await terminate(await backends(app, 'waiting'));
      expect(await c.next('ok', 'failed')).toEqual({ event: 'failed', code: 'STORE_UNAVAILABLE' });
      await release();
      await queriesAgain(c);
      await closesCleanly(c);
    });

    it('the LISTEN connection ended while idle: its watchers hear it, the store watches again', async () => {
      const { child: c, app } = await child();
      c.send('open');
      expect(await c.next('opened', 'failed')).toEqual({ event: 'opened' });
      c.send('watch');
      expect(await c.next('watching')).toEqual({ event: 'watching' });
      await terminate(await backends(app, 'listen'));
      expect(await c.next('watch-lost')).toEqual({ event: 'watch-lost' });
      await queriesAgain(c);
      c.send('watch');
      expect(await c.next('watching')).toEqual({ event: 'watching' });
      expect(await backends(app, 'listen')).toHaveLength(1);
      await closesCleanly(c);
    });

    it('the connection migrating the schema ended mid-query: open fails typed, then succeeds', async () => {
      const { child: c, app, schema } = await child();
      await hold(`SELECT pg_advisory_xact_lock(hashtext('agentstate:${schema}'))`);
      c.send('open');
      await until(
        async () => (await backends(app, 'waiting')).length === 1,
        'the migration to wait',
      );
      await terminate(await backends(app, 'waiting'));
      expect(await c.next('opened', 'failed')).toEqual({
        event: 'failed',
        code: 'STORE_UNAVAILABLE',
      });
      await release();
      c.send('open');
      expect(await c.next('opened', 'failed')).toEqual({ event: 'opened' });
      await queriesAgain(c);
      await closesCleanly(c);
    });
  },
);
