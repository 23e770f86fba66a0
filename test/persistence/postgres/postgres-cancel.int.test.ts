import { describe, expect, it } from 'vitest';
import {
  Agent,
  RunCancelledError,
  SessionNotFoundError,
  StoreUnavailableError,
} from '../../../src/index.js';
import { FakeClock, ScriptedModel } from '../../../src/testing.js';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { deferred, until } from '../../helpers/async.js';
import { blockingLookup } from '../../helpers/blocking-lookup.js';
import { triageWithBilling } from '../../helpers/sub-agent-fixtures.js';
import { approvalAgent, callTools } from '../../helpers/approval-agent.js';
import { cancelDecisions } from '../../../src/persistence/run-cancels.js';
import { describeSession } from '../../../src/runs/session-view.js';
import { storedRun } from '../../../src/runs/stored-run.js';
import { usePostgres } from '../../helpers/postgres-tests.js';
import { usePostgresCancel } from '../../helpers/postgres-cancel-setup.js';

/**
 * Issue 30, "Cancel from anywhere": process B cancels the run process A executes, through the
 * decision inbox and its notification (A's inbox poll never fires: its clock stands still).
 */
const pgt = usePostgres();
const { cleanups, worker: start, openStore, listeners, inboxRows } = usePostgresCancel(pgt);

const key = { sessionId: 'order', userId: 'u1' };

/** A store whose inbox cannot be watched (as behind a transaction-mode pooler). */
class DeafInboxStore extends PostgresSessionStore {
  override readonly watchDecisions = () =>
    Promise.reject(new StoreUnavailableError('listen for notifications', new Error('no LISTEN')));
}
const email = { name: 'send_email', arguments: { to: 'a@x.io', body: 'hi' } };

describe('agent.cancel of a run another process executes (PostgreSQL)', () => {
  it("B cancels A's live run: A's tool sees its signal abort by the notification, children stop, the run ends cancelled", async () => {
    const schema = pgt.schema('cancel');
    const a = await start(schema, 'proc-a');
    a.send('run', key);
    expect(await a.next('tool-started', 'run-ended')).toMatchObject({ event: 'tool-started' });

    const b = await start(schema, 'proc-b');
    b.send('cancel', { ...key, by: 'ops' });
    expect(await b.next('cancel-recorded', 'failed')).toMatchObject({ event: 'cancel-recorded' });

    expect(await a.next('tool-aborted', 'run-ended')).toEqual({
      event: 'tool-aborted',
      aborted: true,
    });
    expect(await a.next('run-ended')).toEqual({ event: 'run-ended', name: 'RunCancelledError' });

    const store = await openStore(schema);
    const view = describeSession(await store.load(key), 'gone');
    expect(view.lastRun?.status).toBe('cancelled');
    expect(view.state).toBe('active.idle');
    // The aborted lookup is the billing sub-agent's tool: the child stopped with its parent,
    // and no run (parent or child) is left in the stored session.
    expect(storedRun((await store.load(key)).snapshot)).toBeUndefined();
    // Applied once, by the notification (A's poll never fires), and audited with who asked.
    const { entries } = await store.readAudit({ ...key, kind: 'session', limit: 100 });
    const cancels = entries.filter((e) => e.action === 'cancelRun');
    expect(cancels.map((e) => [e.by, e.summary])).toEqual([
      ['ops', 'run cancelled by ops through the inbox (notification)'],
    ]);
    expect(await inboxRows(schema)).toBe(0);
  });

  it('without a LISTEN connection (none can be had), the process executing the run takes the cancel at its next lease renewal (the poll)', async () => {
    const fresh = await pgt.freshStore('cancelpoll');
    cleanups.push(fresh.cleanup);
    // As behind a transaction-mode pooler: every watch of the inbox is refused. (A LISTEN
    // connection lost is had again at once: test/persistence/postgres/postgres-cancel-restart.int.test.ts.)
    const deaf = new DeafInboxStore({ pool: pgt.pool, schema: fresh.schema });
    cleanups.push(() => deaf.close());
    const other = await openStore(fresh.schema);
    const clock = new FakeClock();
    const { lookup, started, aborted } = blockingLookup();
    const lease = { owner: 'runner', ttlMs: 30_000 };
    const { triage: runner } = triageWithBilling({
      store: deaf,
      billing: { tools: [lookup] },
      triage: { clock, lease },
    });
    const { triage: api } = triageWithBilling({ store: other, triage: { clock } });
    const run = runner.run('where is order 2?', key);
    await started.promise;
    expect(await listeners()).toEqual([]);

    await api.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
    expect(aborted).toEqual([]); // recorded, not heard: nobody listens
    await until(async () => clock.pendingSleepers > 0, 'the lease renewal to wait');
    clock.advance(lease.ttlMs / 3);
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    const { entries } = await other.readAudit({ ...key, kind: 'session', limit: 100 });
    expect(entries.filter((e) => e.action === 'cancelRun').map((e) => e.summary)).toEqual([
      'run cancelled by ops through the inbox (poll)',
    ]);
  });

  it('many runs of many agents in one process share one LISTEN connection with the scheduler; each is cancelled by its notification', async () => {
    const fresh = await pgt.freshStore('cancelshared');
    cleanups.push(fresh.cleanup);
    const other = await openStore(fresh.schema);
    const clock = new FakeClock(); // stands still: no poll, only notifications
    let started = 0;
    const { lookup, aborted } = blockingLookup({ start: () => (started += 1) });
    const agents = Array.from({ length: 4 }, (_, i) =>
      triageWithBilling({
        store: fresh.store,
        billing: { tools: [lookup] },
        triage: { clock, lease: { owner: `runner-${i}`, ttlMs: 30_000 } },
      }),
    );
    const scheduler = agents[0]!.triage.startScheduler({ pollIntervalMs: 3_600_000 });
    cleanups.push(() => scheduler.stop());
    const keys = Array.from({ length: 12 }, (_, i) => ({ sessionId: `many-${i}`, userId: 'u1' }));
    const runs = keys.map((k, i) =>
      agents[i % agents.length]!.triage.run('where is order 2?', k).catch((e: unknown) => e),
    );
    await until(() => started === keys.length, 'every run to call its tool');
    // 12 runs of 4 runtimes and a scheduler: one connection (before: one per runtime, and one
    // for the scheduler).
    await until(async () => (await listeners()).length === 1, 'the store to listen');
    expect(await listeners()).toHaveLength(1);

    const { triage: api } = triageWithBilling({ store: other, triage: { clock } });
    for (const k of keys) await api.cancel(k.sessionId, { userId: k.userId, by: 'ops' });
    for (const ended of await Promise.all(runs)) expect(ended).toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual(keys.map(() => true));
    const { entries } = await other.readAudit({ ...keys[0]!, kind: 'session', limit: 100 });
    expect(entries.filter((e) => e.action === 'cancelRun').map((e) => e.summary)).toEqual([
      'run cancelled by ops through the inbox (notification)',
    ]);
    expect(await inboxRows(fresh.schema)).toBe(0);
    // The runs are over: the scheduler alone holds the connection; stopped, nobody does (it
    // lingers, unheld, for the next run); the store's close ends it at once.
    expect(await listeners()).toHaveLength(1);
    await scheduler.stop();
    expect(await listeners()).toHaveLength(1);
    await fresh.store.close();
    await until(async () => (await listeners()).length === 0, 'the connection to end');
  });

  it('a cancel request no executing process took (its run paused first) is applied by a scheduler', async () => {
    const fresh = await pgt.freshStore('cancellate');
    cleanups.push(fresh.cleanup);
    const { agent } = approvalAgent(fresh.store, { clock: new FakeClock() });
    const paused = await agent.run(callTools(email), { ...key });
    expect(paused.interrupted).toBe(true);
    // Recorded while the run executed; the run paused before its process read it.
    await fresh.store.submitDecisions({
      key,
      runId: paused.state.runId,
      decisions: cancelDecisions('ops'),
      at: 1,
    });
    const scheduler = agent.startScheduler({ pollIntervalMs: 3_600_000 });
    cleanups.push(() => scheduler.stop());
    await until(async () => {
      const view = await agent.runtimeFor(fresh.store).getSession(key);
      return view.lastRun?.status === 'cancelled';
    }, 'the scheduler to cancel the paused run');
    await until(async () => (await inboxRows(fresh.schema)) === 0, 'the request to be dropped');
    expect(
      (await fresh.store.readAudit({ ...key, kind: 'session', limit: 100 })).entries.map(
        (e) => e.summary,
      ),
    ).toContain('cancelRun by ops');
  });

  it('an unknown session is SessionNotFoundError and nothing is recorded', async () => {
    const schema = pgt.schema('cancelnone');
    const b = await start(schema, 'proc-b');
    b.send('cancel', { sessionId: 'nobody', by: 'ops' });
    expect(await b.next('cancel-recorded', 'failed')).toMatchObject({
      event: 'failed',
      name: SessionNotFoundError.name,
    });
    expect(await inboxRows(schema)).toBe(0);
  });
});

describe('a cancel recorded while the runtime that ran the session is idle (PostgreSQL)', () => {
  /**
   * A request recorded through the store while the run executed (as `agent.cancel` records it
   * from another process) that the runtime did not read before the run paused or ended: the
   * runtime, idle, hears its notification; its next run's start reads it before that run
   * takes a step. The stored run's id decides: the run it continues ends cancelled; a new run
   * of the session is not cancelled by it.
   */
  async function idleRuntime(prefix: string) {
    const fresh = await pgt.freshStore(prefix);
    cleanups.push(fresh.cleanup);
    const other = await openStore(fresh.schema);
    const { agent, counters, model } = approvalAgent(fresh.store, { clock: new FakeClock() });
    // Told after the runtime's cancel watch (an earlier watcher of the same connection).
    let heard = 0;
    const watch = await fresh.store.watchDecisions(
      () => (heard += 1),
      () => undefined,
    );
    cleanups.push(() => watch.close());
    /** Records a cancel of `runId` from the other store object; resolves once the runtime heard it. */
    const record = async (key: typeof sessionKey, runId: string): Promise<void> => {
      const before = heard;
      await other.submitDecisions({ key, runId, decisions: cancelDecisions('ops'), at: 1 });
      await until(() => heard > before, 'the notification');
    };
    const audited = async (key: typeof sessionKey): Promise<string[]> =>
      (await fresh.store.readAudit({ ...key, kind: 'session', limit: 100 })).entries
        .filter((e) => e.action === 'cancelRun')
        .map((e) => e.summary);
    return { ...fresh, agent, counters, model, record, audited };
  }
  const sessionKey = { sessionId: 'idle', userId: 'u1' };
  const lookup = (word: string) => callTools({ name: 'lookup', arguments: { word } });

  it('the run it was recorded for, paused meanwhile, ends cancelled at its resume here, before any tool or model call', async () => {
    const s = await idleRuntime('idlepaused');
    // Three sessions: each resume reads the request at its start (not racing the resumed run).
    for (const sessionId of ['p1', 'p2', 'p3']) {
      const key = { sessionId, userId: 'u1' };
      const paused = await s.agent.run(callTools(email), key);
      expect(paused.interrupted).toBe(true);
      await s.record(key, paused.state.runId);
      const calls = s.model.calls.length;
      const approved = paused.state.approve(paused.interruptions[0]!.callId);
      await expect(s.agent.resume(approved)).rejects.toBeInstanceOf(RunCancelledError);
      expect(s.counters.executed.send_email).toBeUndefined(); // the approved email: never sent
      expect(s.model.calls.length).toBe(calls);
      expect(await inboxRows(s.schema)).toBe(0);
      const view = await s.agent.runtimeFor(s.store).getSession(key);
      expect(view.lastRun?.status).toBe('cancelled');
      expect(await s.audited(key)).toEqual(['cancelRun by ops']);
    }
  });

  it('the run it was recorded for, left in flight by a dead process, ends cancelled at its recovery, before its step runs again', async () => {
    const fresh = await pgt.freshStore('idlecrashed', { clock: { now: () => 1_000_000 } });
    cleanups.push(fresh.cleanup);
    const called = deferred();
    // Process A: its model call never returns (the process is gone), its lease left to expire.
    const dead = new Agent({
      name: 'thinker',
      store: fresh.store,
      clock: new FakeClock(1_000_000),
      model: new ScriptedModel(() => {
        called.resolve();
        return new Promise<never>(() => undefined);
      }),
    });
    void dead.run('go', sessionKey).catch(() => undefined);
    await called.promise;
    const { runId } = storedRun<{ context: { runId: string } }>(
      (await fresh.store.load(sessionKey)).snapshot,
    )!.context;
    await fresh.store.close(); // A is gone: it hears nothing more
    // Recorded while A's lease was live (as agent.cancel records it), never read by A.
    const other = await openStore(fresh.schema);
    await other.submitDecisions({
      key: sessionKey,
      runId,
      decisions: cancelDecisions('ops'),
      at: 1,
    });
    // Process C, its runtime idle, on a store object of its own, past the lease.
    const later = await PostgresSessionStore.open({
      pool: pgt.pool,
      schema: fresh.schema,
      clock: { now: () => 2_000_000 },
    });
    cleanups.push(() => later.close());
    let calls = 0;
    const recovering = new Agent({
      name: 'thinker',
      store: later,
      clock: new FakeClock(2_000_000),
      model: new ScriptedModel(() => {
        calls += 1;
        return { text: 'late' };
      }),
    });
    const recovered = await recovering.runtimeFor(later).recover({ olderThan: 0, userId: 'u1' });
    expect(recovered.map((r) => r.key)).toEqual([sessionKey]);
    expect(recovered[0]!.error).toBeInstanceOf(RunCancelledError);
    expect(calls).toBe(0); // the model step in flight: not run again
    expect(await inboxRows(fresh.schema)).toBe(0);
    const view = await recovering.runtimeFor(later).getSession(sessionKey);
    expect(view.lastRun?.status).toBe('cancelled');
  });

  it('a request for a run that ended meanwhile is dropped at the next run start, unapplied: the new run answers', async () => {
    const s = await idleRuntime('idleended');
    const first = await s.agent.run(lookup('one'), sessionKey);
    expect(first.output).toBe('Done. lookup: one: found');
    await s.record(sessionKey, first.state.runId);
    const second = await s.agent.run(lookup('two'), sessionKey);
    expect(second.output).toBe('Done. lookup: two: found');
    expect(second.state.runId).not.toBe(first.state.runId);
    // Read and dropped at the run's start, before it took a step.
    expect(await inboxRows(s.schema)).toBe(0);
    expect(s.counters.executed.lookup).toBe(2);
    expect(await s.audited(sessionKey)).toEqual([]);
  });
});
