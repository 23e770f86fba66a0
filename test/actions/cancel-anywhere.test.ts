import { afterEach, describe, expect, it } from 'vitest';
import { RunCancelledError, SessionNotFoundError } from '../../src/index.js';
import { blockingLookup } from '../helpers/blocking-lookup.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { hasDecisionInbox } from '../../src/persistence/store-supports.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'anywhere', userId: 'bob' };

describe('agent.cancel of a run executing in this process (LevelDB)', () => {
  it('a second agent on the same store object stops the run: tools abort, children stop, audited', async () => {
    const { store } = await temps.open();
    const { lookup, started, aborted } = blockingLookup();
    const { triage: runner } = triageWithBilling({ store, billing: { tools: [lookup] } });
    const { triage: other } = triageWithBilling({ store });
    expect(other).not.toBe(runner);
    const run = runner.run('where is order 2?', key);
    await started.promise;

    await other.cancel(key.sessionId, { userId: key.userId, by: 'ops' });

    expect(aborted).toEqual([true]);
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    const view = await other.runtimeFor(store).getSession(key);
    expect(view.lastRun?.status).toBe('cancelled');
    expect(view.state).toBe('active.idle');
    const { entries } = await other.runtimeFor(store).auditLog({ ...key, kind: 'session' });
    const cancels = entries.filter((e) => e.action === 'cancelRun');
    expect(cancels.map((e) => [e.by, e.summary])).toEqual([
      ['ops', 'run cancelled by ops in this process'],
    ]);
    // The session takes messages again, under the same lease rules.
    const { triage: next } = triageWithBilling({ store });
    expect((await next.run('where is order 3?', key)).interrupted).toBe(false);
  });

  it('a cancel of a session nobody runs cancels its paused run, as before', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    const paused = await triage.run('please refund order 7', key);
    expect(paused.interrupted).toBe(true);
    await triage.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
    const view = await triage.runtimeFor(store).getSession(key);
    expect(view.lastRun?.status).toBe('cancelled');
  });

  it('an unknown session is SessionNotFoundError and nothing is written', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    await triage.run('where is order 1?', key);
    const before = await store.load(key);
    const error = await triage.cancel('nobody', { userId: key.userId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionNotFoundError);
    // Another user's session is not found either.
    await expect(triage.cancel(key.sessionId, { userId: 'eve' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(await store.load(key)).toEqual(before);
    await expect(store.load({ ...key, sessionId: 'nobody' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(() => triage.cancel(key.sessionId, { by: 3 as unknown as string })).toThrow(TypeError);
  });
});

describe('a cancel while the runtime that ran the session is idle (LevelDB)', () => {
  it('records nothing and ends the paused run at once; that runtime then resumes nothing, and its next message runs', async () => {
    const { store } = await temps.open();
    const owner = approvalAgent(store);
    const other = approvalAgent(store, { counters: owner.counters }).agent;
    const email = { name: 'send_email', arguments: { to: 'a@x.io', body: 'hi' } };
    const paused = await owner.agent.run(callTools(email), key);
    expect(paused.interrupted).toBe(true);

    // The owner's runtime is idle: another runtime on the store cancels the stored run itself.
    await other.cancel(key.sessionId, { userId: key.userId, by: 'ops' });
    expect(hasDecisionInbox(store)).toBe(false); // nowhere to record one: applied here
    const view = await owner.agent.runtimeFor(store).getSession(key);
    expect(view.lastRun?.status).toBe('cancelled');

    // The owner's next run start finds no run to continue: nothing runs.
    const calls = owner.model.calls.length;
    const approved = paused.state.approve(paused.interruptions[0]!.callId);
    const error = await owner.agent.resume(approved).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOTHING_TO_RESUME' });
    expect(owner.counters.executed.send_email).toBeUndefined();
    expect(owner.model.calls.length).toBe(calls);
    // A new message is a new run, not cancelled by it.
    const next = await owner.agent.run(
      callTools({ name: 'lookup', arguments: { word: 'x' } }),
      key,
    );
    expect(next.output).toBe('Done. lookup: x: found');
    const { entries } = await store.readAudit({ ...key, kind: 'session', limit: 100 });
    expect(entries.filter((e) => e.action === 'cancelRun').map((e) => e.summary)).toEqual([
      'cancelRun by ops',
    ]);
  });
});
