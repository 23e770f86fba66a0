import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle, type InspectorOptions } from '../../src/inspect.js';
import { parseDataset, readDataset } from '../../src/evals/eval-dataset.js';
import { runEval } from '../../src/evals/run-eval.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../src/evals/scorers/tool-calls-match.js';
import { cliRuntime } from '../../src/cli/shared/cli-store.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { billsAgent, storeBillSessions } from '../helpers/eval-sessions.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 46: "add this run to a dataset" in the inspector, and its eval results view. */
const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

/** Bills sessions of alice (and one of bob) on LevelDB, and an inspector of alice's. */
async function setup(options: Partial<InspectorOptions> = {}) {
  const { store, folder } = await temps.open();
  const agent = billsAgent();
  await storeBillSessions(store, 'alice', agent);
  await agent.run('Please pay Bob Gas $30.', { sessionId: 'bob-1', userId: 'bob', store });
  const dir = join(folder, 'datasets');
  const inspector = await startInspector({
    runtime: agent.runtimeFor(store),
    userId: 'alice',
    datasets: { dir },
    ...options,
  });
  open.push(inspector);
  return { store, agent, dir, client: inspectorClient(inspector) };
}

const rowsIn = async (path: string) =>
  parseDataset(await readFile(path, 'utf8'), { name: 'x' }).rows;

describe('the inspector: add this run to a dataset', () => {
  it('appends the run (and, asked, each model step) of a session to the dataset named', async () => {
    const { dir, client } = await setup();
    const info = (await client.get('/api/info')).json as { datasets: boolean };
    expect(info.datasets).toBe(true);
    const added = await client.post('/api/sessions/bill-08/dataset', { dataset: 'bills' });
    expect(added.status).toBe(200);
    const body = added.json as { dataset: string; added: string[]; kind: string };
    expect(body).toMatchObject({ dataset: 'bills', kind: 'run' });
    expect(body.added).toHaveLength(1);
    const steps = await client.post('/api/sessions/bill-09/dataset', {
      dataset: 'bills',
      steps: 'model-steps',
    });
    expect(steps.status).toBe(200);
    expect((steps.json as { added: string[] }).added).toHaveLength(2);
    const rows = await rowsIn(join(dir, 'bills.jsonl'));
    expect(rows.map((r) => [r.kind, r.source?.sessionId, r.source?.userId])).toEqual([
      ['run', 'bill-08', 'alice'],
      ['step', 'bill-09', 'alice'],
      ['step', 'bill-09', 'alice'],
    ]);
    // The run row holds the approval as decided, and what the run did.
    expect(rows[0]!.decisions).toEqual([{ tool: 'pay_bill', decision: 'approve' }]);
    expect(rows[0]!.recorded.output).toBe('Paid $120.00 to ACME Power.');
    const listed = await client.get('/api/datasets');
    expect(listed.json).toEqual({ datasets: [{ name: 'bills', rows: 3 }] });
  });

  it('refuses bad input with a 400 and writes nothing; another user’s session is not found', async () => {
    const { dir, client, store } = await setup();
    const before = await dumpBackend(store);
    for (const [body, code] of [
      [{}, 'BAD_REQUEST'],
      [{ dataset: '../escape' }, 'BAD_REQUEST'],
      [{ dataset: 'a/b' }, 'BAD_REQUEST'],
      [{ dataset: 'ok', steps: 'all' }, 'BAD_REQUEST'],
    ] as const) {
      const answer = await client.post('/api/sessions/bill-01/dataset', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect((answer.json as { error: { code: string } }).error.code).toBe(code);
    }
    const bob = await client.post('/api/sessions/bob-1/dataset', { dataset: 'ok' });
    expect(bob.status).toBe(404);
    const asBob = await client.post('/api/sessions/bob-1/dataset?user=bob', { dataset: 'ok' });
    expect(asBob.status).toBe(403);
    // The same run twice: its row id is taken, nothing is appended.
    expect((await client.post('/api/sessions/bill-01/dataset', { dataset: 'ok' })).status).toBe(
      200,
    );
    const twice = await client.post('/api/sessions/bill-01/dataset', { dataset: 'ok' });
    expect(twice.status).toBe(400);
    expect((twice.json as { error: { code: string } }).error.code).toBe('INVALID_DATASET');
    expect(await rowsIn(join(dir, 'ok.jsonl'))).toHaveLength(1);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('a record-only inspector, or one without a datasets folder, adds nothing', async () => {
    const { store, folder } = await temps.open();
    await storeBillSessions(store, undefined);
    const recordOnly = await startInspector({
      runtime: cliRuntime(store),
      recordOnly: true,
      datasets: { dir: join(folder, 'd') },
    });
    open.push(recordOnly);
    const refused = await inspectorClient(recordOnly).post('/api/sessions/bill-01/dataset', {
      dataset: 'x',
    });
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { code: string } }).error.code).toBe('NO_AGENT');
    const plain = await startInspector({ runtime: billsAgent().runtimeFor(store) });
    open.push(plain);
    const none = inspectorClient(plain);
    expect(((await none.get('/api/info')).json as { datasets: boolean }).datasets).toBe(false);
    const missing = await none.post('/api/sessions/bill-01/dataset', { dataset: 'x' });
    expect(missing.status).toBe(404);
    await expect(
      startInspector({ runtime: cliRuntime(store), datasets: { dir: '' } }),
    ).rejects.toThrow(/"datasets"/);
  });
});

describe('the inspector: eval results', () => {
  it('lists the user’s eval runs and serves one report; another user’s is not served', async () => {
    const { store, agent, client, dir } = await setup();
    expect((await client.post('/api/sessions/bill-01/dataset', { dataset: 'two' })).status).toBe(
      200,
    );
    expect((await client.post('/api/sessions/bill-08/dataset', { dataset: 'two' })).status).toBe(
      200,
    );
    const dataset = await readDataset(join(dir, 'two.jsonl'));
    const report = await runEval({
      id: 'nightly',
      store,
      userId: 'alice',
      agent,
      dataset,
      scorers: [exactOutput(), toolCallsMatch()],
      label: 'baseline',
    });
    await runEval({ id: 'bobs', store, userId: 'bob', agent, dataset, scorers: [exactOutput()] });
    const listed = (await client.get('/api/evals')).json as {
      userId: string;
      evals: { evalId: string }[];
    };
    expect(listed.userId).toBe('alice');
    expect(listed.evals.map((e) => e.evalId)).toEqual(['nightly']);
    const shown = await client.get('/api/evals/nightly');
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      evalId: 'nightly',
      label: 'baseline',
      rows: report.rows.map((r) => ({ rowId: r.rowId, pass: true })),
    });
    expect((await client.get('/api/evals/bobs')).status).toBe(404);
    expect((await client.get('/api/evals?user=bob')).status).toBe(403);
  });
});
