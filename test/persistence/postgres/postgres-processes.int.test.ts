import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { JsonLineChild } from '../../helpers/json-line-child.js';
import { useOwnPostgres } from '../../helpers/postgres-tests.js';
import { describeRuntimeLeases } from '../../helpers/runtime-leases.js';

const pgt = useOwnPostgres();

describeRuntimeLeases('PostgresSessionStore', (clock) => pgt.freshStore('leases', { clock }));

/** A worker process (test/helpers/pg-worker.ts) driven by JSON lines. */
function startWorker(
  schema: string,
  owner: string,
  options: { gated?: boolean; offsetMs?: number } = {},
): Promise<JsonLineChild> {
  const args = [pgt.url, schema, owner, String(options.offsetMs ?? 0)];
  return JsonLineChild.start('test/helpers/pg-worker.ts', args, {
    GATED: options.gated ? '1' : '0',
  });
}

describe('PostgreSQL shared by processes', () => {
  const workers: JsonLineChild[] = [];
  const start = async (schema: string, owner: string, options = {}) => {
    const worker = await startWorker(schema, owner, options);
    workers.push(worker);
    expect(await worker.next('ready', 'exited')).toEqual({ event: 'ready' });
    return worker;
  };
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  const history = async (schema: string) => {
    const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
    const key = { sessionId: 'shared', userId: 'u1' };
    const [record, items] = [await store.load(key), await store.readHistory(key)];
    await store.close();
    return { record, contents: items.map((i) => ('content' in i ? i.content : i.type)) };
  };

  it('two processes racing on one session: exactly one runs it', async () => {
    const schema = pgt.schema('race');
    const [a, b] = await Promise.all([
      start(schema, 'proc-a', { gated: true }),
      start(schema, 'proc-b', { gated: true }),
    ]);
    a.send('run', { text: 'from a' });
    b.send('run', { text: 'from b' });
    // The winner reaches its model and waits there; the other is refused before any call.
    const first = await Promise.race([
      a.next('model-called', 'run-failed').then((e) => ({ worker: a, other: b, e })),
      b.next('model-called', 'run-failed').then((e) => ({ worker: b, other: a, e })),
    ]);
    const winner = first.e.event === 'model-called' ? first.worker : first.other;
    const loser = winner === a ? b : a;
    const refused = first.e.event === 'run-failed' ? first.e : await loser.next('run-failed');
    expect(refused).toMatchObject({ code: 'RUN_IN_PROGRESS' });
    if (first.e.event === 'run-failed') await winner.next('model-called');
    winner.send('release');
    const done = await winner.next('run-done', 'run-failed');
    expect(done).toMatchObject({ event: 'run-done' });
    expect(loser.events.filter((e) => e.event === 'model-called')).toEqual([]);
    const { record, contents } = await history(schema);
    expect(contents).toEqual([winner === a ? 'from a' : 'from b', done['output']]);
    expect(record.version).toBeGreaterThan(1);
  });

  it('lease takeover: a live process recovers a stalled owner’s run and the stale write is rejected', async () => {
    const schema = pgt.schema('takeover');
    const a = await start(schema, 'proc-a', { gated: true });
    a.send('run', { text: 'hello' });
    await a.next('model-called');
    // B's clock is a minute ahead: A's 30 s lease has expired for it (A stalled, not renewing).
    const b = await start(schema, 'proc-b', { offsetMs: 60_000 });
    b.send('recover');
    const recovered = await b.next('recovered');
    expect(recovered['results']).toEqual([{ sessionId: 'shared', output: 'proc-b says hi' }]);
    a.send('release');
    const late = await a.next('run-done', 'run-failed');
    expect(late).toMatchObject({ event: 'run-failed', code: 'LEASE_LOST' });
    const { contents } = await history(schema);
    expect(contents).toEqual(['hello', 'proc-b says hi']);
  });

  it('a delete racing a late write: the delete wins', async () => {
    const schema = pgt.schema('delete');
    const a = await start(schema, 'proc-a');
    a.send('run', { text: 'hello' });
    await a.next('run-done');
    const b = await start(schema, 'proc-b');
    // A read the session, then stalled; B deletes it; A's late write comes after.
    a.send('load');
    const loaded = await a.next('loaded');
    b.send('delete');
    expect(await b.next('deleted', 'delete-failed')).toMatchObject({ event: 'deleted' });
    a.send('saveLate', { text: 'late' });
    expect(await a.next('saved', 'save-failed')).toMatchObject({ code: 'SESSION_CONFLICT' });
    a.send('load');
    await a.next('loaded');
    a.send('saveLate', { text: 'revive' });
    expect(await a.next('saved', 'save-failed')).toMatchObject({
      code: 'SESSION_CONFLICT',
      message: expect.stringContaining('deleted') as unknown,
    });
    const { record, contents } = await history(schema);
    expect(record).toMatchObject({ status: 'deleted', version: (loaded['version'] as number) + 1 });
    expect(contents).not.toContain('late');
    expect(contents).not.toContain('revive');
  });

  it('PostgreSQL restarted mid-run: transparent while idle; down at a save, a typed error, then the run resumes', async () => {
    const schema = pgt.schema('restart');
    const a = await start(schema, 'proc-a', { gated: true });
    a.send('run', { text: 'hello' });
    await a.next('model-called');
    // Restarted while the run waits in its model: the pool replaces its cut connections.
    await pgt.cluster.restart();
    a.send('release');
    expect(await a.next('run-done', 'run-failed')).toMatchObject({ event: 'run-done' });
    a.send('gate');
    a.send('run', { text: 'again' });
    await a.next('model-called');
    // Down when the step is saved: a typed error, nothing half-written.
    pgt.cluster.stopServer();
    a.send('release');
    const failed = await a.next('run-done', 'run-failed');
    expect(failed).toMatchObject({ event: 'run-failed', code: 'SESSION_SAVE_FAILED' });
    pgt.cluster.startServer();
    a.send('resume');
    expect(await a.next('run-done', 'run-failed')).toMatchObject({
      event: 'run-done',
      output: 'proc-a says hi',
    });
    const { contents } = await history(schema);
    expect(contents).toEqual(['hello', 'proc-a says hi', 'again', 'proc-a says hi']);
  });
});
