import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { startInspector } from '../../src/inspect.js';
import { RunCancelledError } from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { until } from '../helpers/async.js';
import { blockingLookup } from '../helpers/blocking-lookup.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { useInspectorPages } from '../helpers/inspector-fixtures.js';
import { usePostgresCancel } from '../helpers/postgres-cancel-setup.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';

/**
 * The inspector's Cancel run of a run executing now (issue 30, "Cancel from anywhere"): in the
 * inspector's process, and on PostgreSQL in another process; `by` is the inspector's operator.
 */
const pgt = usePostgres();
const { worker, openStore, listeners, inboxRows } = usePostgresCancel(pgt);
const { temps, inspectors, newPage } = useInspectorPages();

const key = { sessionId: 'order', userId: 'u1' };
const operatorOf = (request: IncomingMessage): string | undefined => {
  const who = request.headers['x-operator'];
  return typeof who === 'string' ? who : undefined;
};

describe('inspector: Cancel run of a live run', () => {
  it('in the app: the page offers Cancel on a running run; it ends cancelled, audited with the operator', async () => {
    const { store } = await temps.open();
    const { lookup, started, aborted } = blockingLookup();
    const { triage } = triageWithBilling({ store, billing: { tools: [lookup] } });
    const running = triage.run('where is order 2?', key).catch((e: unknown) => e);
    await started.promise;
    const inspector = await startInspector({
      runtime: triage.runtimeFor(store),
      userId: 'u1',
      operator: 'ops-alice',
    });
    inspectors.push(inspector);

    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="order"]');
    await page.waitForSelector('#session-id:text("order")');
    await page.click('button[data-action="cancel"]');
    await page.waitForSelector('#action-result >> text=run cancelled by ops-alice');

    expect(await running).toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    const runtime = triage.runtimeFor(store);
    expect((await runtime.getSession(key)).lastRun?.status).toBe('cancelled');
    const { entries } = await runtime.auditLog({ ...key, kind: 'session' });
    expect(entries.filter((e) => e.action === 'cancelRun').map((e) => [e.by, e.summary])).toEqual([
      ['ops-alice', 'run cancelled by ops-alice in this process'],
    ]);
    expect(errors).toEqual([]);
  });

  it('on PostgreSQL: the inspector of one process cancels the run another executes; that process stops it', async () => {
    const schema = pgt.schema('inspcancel');
    const a = await worker(schema, 'proc-a');
    a.send('run', key);
    expect(await a.next('tool-started', 'run-ended')).toMatchObject({ event: 'tool-started' });
    await until(async () => (await listeners()).length === 1, 'A to listen');

    const store = await openStore(schema);
    const { triage } = triageWithBilling({ store });
    const inspector = await startInspector({
      runtime: triage.runtimeFor(store),
      userId: 'u1',
      operator: operatorOf,
    });
    inspectors.push(inspector);
    const client = inspectorClient(inspector);
    const detail = (await client.get('/api/sessions/order')).json as {
      session: { runStatus?: { status: string } };
    };
    expect(detail.session.runStatus?.status).toBe('running');
    const answer = await client.post(
      '/api/sessions/order/cancel',
      {},
      {
        'x-agentstate-token': inspector.token,
        'x-operator': 'ops-bob',
      },
    );
    expect(answer.status).toBe(200);
    // Recorded for A (or already applied by A when the inspector read the session again).
    expect([
      { requested: true, by: 'ops-bob', note: 'the process executing the run stops it' },
      { cancelled: true, by: 'ops-bob' },
    ]).toContainEqual(answer.json);

    expect(await a.next('tool-aborted', 'run-ended')).toEqual({
      event: 'tool-aborted',
      aborted: true,
    });
    expect(await a.next('run-ended')).toEqual({ event: 'run-ended', name: RunCancelledError.name });
    expect(describeSession(await store.load(key), 'gone').lastRun?.status).toBe('cancelled');
    const { entries } = await store.readAudit({ ...key, kind: 'session', limit: 100 });
    expect(entries.filter((e) => e.action === 'cancelRun').map((e) => [e.by, e.summary])).toEqual([
      ['ops-bob', 'run cancelled by ops-bob through the inbox (notification)'],
    ]);
    expect(await inboxRows(schema)).toBe(0);
  });

  it('refuses an operator that is neither a non-empty string nor a function', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    const runtime = triage.runtimeFor(store);
    for (const operator of ['', 3]) {
      await expect(
        startInspector({ runtime, operator: operator as unknown as string }),
      ).rejects.toThrow(/option "operator"/);
    }
  });
});
