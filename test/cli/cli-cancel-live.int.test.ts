import { userInfo } from 'node:os';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import { RunCancelledError } from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { until } from '../helpers/async.js';
import { blockingLookup } from '../helpers/blocking-lookup.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { usePostgresCancel } from '../helpers/postgres-cancel-setup.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * `agentstate cancel` of a run executing now (issue 30, "Cancel from anywhere"): on PostgreSQL
 * the command line's request reaches the process executing the run through the decision inbox;
 * a LevelDB folder is one process's, so a folder a running app holds is a clear refusal.
 */
const pgt = usePostgres();
const { worker, listeners, inboxRows } = usePostgresCancel(pgt);
const temps = new TempStores();
let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCli();
}, 240_000);
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'order', userId: 'u1' };
const me = userInfo().username;

describe('agentstate cancel of a live run', () => {
  it('on PostgreSQL: process A executes the run, the command line cancels it; A stops it, audited with the operator', async () => {
    const schema = pgt.schema('clicancel');
    const a = await worker(schema, 'proc-a');
    a.send('run', key);
    expect(await a.next('tool-started', 'run-ended')).toMatchObject({ event: 'tool-started' });
    await until(async () => (await listeners()).length === 1);

    const run = await runCli(
      cli,
      ['cancel', 'order', '--user', 'u1', '--schema', schema, '--json'],
      {
        env: { AGENTSTATE_POSTGRES_URL: pgt.url },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ sessionId: 'order', userId: 'u1', by: me });
    // Recorded, or already applied by A when the command line read the session again.
    expect(out['requested'] === true || out['lastRun'] !== undefined).toBe(true);

    expect(await a.next('tool-aborted', 'run-ended')).toEqual({
      event: 'tool-aborted',
      aborted: true,
    });
    expect(await a.next('run-ended')).toEqual({ event: 'run-ended', name: RunCancelledError.name });
    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    try {
      expect(describeSession(await store.load(key), 'gone').lastRun?.status).toBe('cancelled');
      const { entries } = await store.readAudit({ ...key, kind: 'session', limit: 100 });
      expect(entries.filter((e) => e.action === 'cancelRun').map((e) => [e.by, e.summary])).toEqual(
        [[me, `run cancelled by ${me} through the inbox (notification)`]],
      );
    } finally {
      await store.close();
    }
    expect(await inboxRows(schema)).toBe(0);
  });

  it('on PostgreSQL: an unknown session is not found (exit 3) and nothing is recorded', async () => {
    const schema = pgt.schema('clicancelnone');
    await worker(schema, 'proc-a'); // creates the schema
    const run = await runCli(cli, [
      'cancel',
      'nobody',
      '--user',
      'u1',
      '--postgres',
      pgt.url,
      '--schema',
      schema,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/SESSION_NOT_FOUND/);
    expect(await inboxRows(schema)).toBe(0);
  });

  it('on LevelDB: a folder a running app holds is refused with STORE_LOCKED, and its run goes on untouched', async () => {
    const { store, path } = await temps.open();
    const { lookup, started, aborted } = blockingLookup();
    const { triage } = triageWithBilling({ store, billing: { tools: [lookup] } });
    const running = triage.run('where is order 2?', key).catch((e: unknown) => e);
    await started.promise;

    const run = await runCli(cli, ['cancel', 'order', '--user', 'u1', '--db', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /held by a running app \[STORE_LOCKED\]: a LevelDB folder is one process's, so a run it executes is cancelled by that app/,
    );
    expect(run.stdout).toBe('');
    expect(aborted).toEqual([]);
    expect((await triage.runtimeFor(store).getSession(key)).runStatus?.status).toBe('running');

    // The app cancels its own run.
    await triage.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
    expect(await running).toBeInstanceOf(RunCancelledError);
  });

  it('--schema without a PostgreSQL store is a usage error', async () => {
    const run = await runCli(cli, ['cancel', 'order', '--schema', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--schema is for a PostgreSQL store/);
  });
});
