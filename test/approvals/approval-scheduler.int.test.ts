import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidSessionRecordError,
  LevelSessionStore,
  type RunResult,
  type SessionKey,
  type ToolResultItem,
} from '../../src/index.js';
import type { KvOp } from '../../src/persistence/kv/backends/kv-backend.js';
import { deadlineKey } from '../../src/persistence/session-keys.js';
import { cacheKey } from '../../src/session-host/session-cache.js';
import { encodeStored } from '../../src/persistence/session-schemas.js';
import { FakeClock } from '../../src/testing.js';
import { approvalAgent, callTools, type ApprovalCounters } from '../helpers/approval-agent.js';
import { runStoreChild } from '../helpers/approval-process.js';
import { deferred, zeroTimeout, until } from '../helpers/async.js';
import type { SchedulerChildReport, SchedulerChildRequest } from '../helpers/scheduler-child.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 9, point 7: approval deadlines fire on their own, in this process and after a restart. */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const START = Date.UTC(2026, 0, 1);
const TIMEOUT = 60_000;
const TIMEOUT_MESSAGE =
  'The call to "send_email" was not approved before its deadline and did not run.';
const alice = { sessionId: 'pay', userId: 'alice' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });

type Store = LevelSessionStore;

/** The deadline index entries of the store (keys). */
async function indexKeys(store: Store): Promise<string[]> {
  const found: string[] = [];
  for await (const key of store.backend.keys({ gte: 'd!', lt: 'd"' })) found.push(key);
  return found;
}

function lastResults(model: { calls: { items: unknown[] }[] }): ToolResultItem[] {
  const last = model.calls[model.calls.length - 1];
  return (last?.items ?? []).filter(
    (i): i is ToolResultItem => (i as { type: string }).type === 'tool_result',
  );
}

async function setup(options: { onBatchOp?: (index: number, op: KvOp) => void } = {}) {
  const { store, path } = await temps.open(options);
  const clock = new FakeClock(START);
  const made = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT });
  return { store, path, clock, ...made };
}

/** Collects what a scheduler continues and reports, with a promise per continued session. */
function observer() {
  const continued: { key: SessionKey; result: RunResult<unknown> }[] = [];
  const errors: { error: unknown; key: SessionKey | undefined }[] = [];
  const waiting: { key: SessionKey; done: (r: RunResult<unknown>) => void }[] = [];
  const onContinued = (event: { key: SessionKey; result: RunResult<unknown> }): void => {
    continued.push(event);
    for (const w of waiting.splice(0)) {
      if (w.key.sessionId === event.key.sessionId && w.key.userId === event.key.userId) {
        w.done(event.result);
      } else waiting.push(w);
    }
  };
  const onError = (error: unknown, key: SessionKey | undefined): void => {
    errors.push({ error, key });
  };
  /** Resolves when the scheduler continued `key`'s run. */
  const next = (key: SessionKey): Promise<RunResult<unknown>> => {
    const seen = continued.find(
      (c) => c.key.sessionId === key.sessionId && c.key.userId === key.userId,
    );
    if (seen) return Promise.resolve(seen.result);
    const d = deferred<RunResult<unknown>>();
    waiting.push({ key, done: (r) => d.resolve(r) });
    return d.promise;
  };
  return { continued, errors, next, options: { onContinued, onError } };
}

function expectTimedOut(result: RunResult<unknown>, counters: ApprovalCounters): void {
  expect(result).toMatchObject({ interrupted: false });
  expect(result.output).toBe(`Done. send_email (error): ${TIMEOUT_MESSAGE}`);
  expect(counters.executed).toEqual({});
}

describe('the approval-deadline index', () => {
  it('is written in the same batch as the approval and removed with it', async () => {
    const batches: KvOp[][] = [];
    const { store, agent, clock } = await setup({
      onBatchOp: (index, op) => {
        if (index === 0) batches.push([]);
        batches[batches.length - 1]?.push(op);
      },
    });
    const paused = await agent.run(callTools(email('a@x.io')), alice);
    expect(paused.interrupted).toBe(true);
    const entry = deadlineKey(alice, START + TIMEOUT);
    expect(await indexKeys(store)).toEqual([entry]);
    // The batch that stored the paused run also put the index entry: never one without the other.
    const withEntry = batches.filter((b) => b.some((op) => op.key === entry));
    expect(withEntry).toHaveLength(1);
    expect(withEntry[0]?.some((op) => op.type === 'put' && op.key.startsWith('s!'))).toBe(true);
    const info = await agent.runtimeFor(store).getSessionInfo(alice);
    expect(info.approvalDeadline).toBe(START + TIMEOUT);

    // Approved: the entry goes in the batch that records the decision.
    const count = batches.length;
    clock.advance(1000);
    await agent.resume(paused.state.approve('call_1_0'));
    expect(await indexKeys(store)).toEqual([]);
    const removing = batches.slice(count).filter((b) => b.some((op) => op.key === entry));
    expect(removing).toHaveLength(1);
    expect(removing[0]?.find((op) => op.key === entry)?.type).toBe('del');
    expect((await agent.runtimeFor(store).getSessionInfo(alice)).approvalDeadline).toBeUndefined();

    // Cancelled: gone too.
    const again = await agent.run(callTools(email('b@x.io')), alice);
    expect(await indexKeys(store)).toEqual([deadlineKey(alice, START + 1000 + TIMEOUT)]);
    expect(again.interrupted).toBe(true);
    await agent.cancel(alice.sessionId, { userId: alice.userId });
    expect(await indexKeys(store)).toEqual([]);

    // Purged with its session.
    await agent.run(callTools(email('c@x.io')), alice);
    expect(await indexKeys(store)).toHaveLength(1);
    await store.purge(alice);
    expect(await indexKeys(store)).toEqual([]);
  });
});

describe('runtime.startScheduler()', () => {
  it('fires a deadline while the process lives: the call is rejected (timeout) and the run ends', async () => {
    const { store, agent, clock, counters, model } = await setup();
    const paused = await agent.run(callTools(email('a@x.io')), alice);
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      // Armed: it waits with the injected clock for the deadline, nothing fired yet.
      await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep');
      expect(seen.continued).toEqual([]);
      expect(model.calls).toHaveLength(1);
      clock.advance(TIMEOUT);
      const result = await seen.next(alice);
      expect(result.id).toBe(paused.id);
      expectTimedOut(result, counters);
      // The model read the rejection.
      expect(lastResults(model).map((r) => [r.callId, r.name, r.output, r.isError])).toEqual([
        ['call_1_0', 'send_email', TIMEOUT_MESSAGE, true],
      ]);
      expect((await agent.runtimeFor(store).getSession(alice)).state).toBe('active.idle');
      expect(await indexKeys(store)).toEqual([]);
      expect(seen.errors).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });

  it('catches up on start in a new process with deadlines missed while none ran', async () => {
    const { path } = await temps.open().then(async (t) => {
      await t.store.close();
      return t;
    });
    const raised = await runChild(path, {
      mode: 'raise',
      ...alice,
      now: START,
      approvalTimeoutMs: TIMEOUT,
    });
    expect(raised.interrupted).toBe(true);
    const caught = await runChild(path, {
      mode: 'catch-up',
      ...alice,
      now: START + TIMEOUT * 10,
      approvalTimeoutMs: TIMEOUT,
    });
    expect(caught.pid).not.toBe(raised.pid);
    expect(caught).toMatchObject({
      key: alice,
      interrupted: false,
      output: `Done. send_email (error): ${TIMEOUT_MESSAGE}`,
      executed: {},
      errors: [],
    });
    expect(caught.lastResults).toEqual([
      expect.objectContaining({ callId: 'call_1_0', isError: true, output: TIMEOUT_MESSAGE }),
    ]);
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    expect(await indexKeys(reopened)).toEqual([]);
  });

  it('stop() stops it: a deadline passing afterwards runs nothing', async () => {
    const { store, agent, clock, model, counters } = await setup();
    await agent.run(callTools(email('a@x.io')), alice);
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep');
    await scheduler.stop();
    expect(clock.pendingSleepers).toBe(0);
    clock.advance(TIMEOUT * 2);
    for (let i = 0; i < 20; i++) await zeroTimeout();
    expect(seen.continued).toEqual([]);
    expect(model.calls).toHaveLength(1);
    expect(counters.executed).toEqual({});
    expect(await indexKeys(store)).toEqual([deadlineKey(alice, START + TIMEOUT)]);
    expect((await agent.runtimeFor(store).getSession(alice)).run?.state).toBe('awaitingApproval');
  });

  it('keeps users partitioned: one id under two users fires each in its own partition', async () => {
    const { store, agent, clock } = await setup();
    const bob = { sessionId: alice.sessionId, userId: 'bob' };
    const anonymous = { sessionId: alice.sessionId };
    await agent.run(callTools(email('alice@x.io')), alice);
    clock.advance(10_000);
    await agent.run(callTools(email('bob@x.io')), bob);
    clock.advance(10_000);
    await agent.run(callTools(email('anon@x.io')), anonymous);
    expect(await indexKeys(store)).toEqual([
      deadlineKey(alice, START + TIMEOUT),
      deadlineKey(bob, START + 10_000 + TIMEOUT),
      deadlineKey(anonymous, START + 20_000 + TIMEOUT),
    ]);
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep');
      clock.advance(TIMEOUT - 20_000); // alice's deadline only
      await seen.next(alice);
      const runtime = agent.runtimeFor(store);
      expect((await runtime.getSession(alice)).state).toBe('active.idle');
      expect((await runtime.getSession(bob)).run?.state).toBe('awaitingApproval');
      expect((await runtime.getSession(anonymous)).run?.state).toBe('awaitingApproval');
      const history = await store.readHistory(alice);
      expect(JSON.stringify(history)).toContain('alice@x.io');
      expect(JSON.stringify(history)).not.toContain('bob@x.io');

      clock.advance(20_000);
      await seen.next(bob);
      await seen.next(anonymous);
      expect(seen.continued.map((c) => c.key)).toEqual([alice, bob, anonymous]);
      expect(JSON.stringify(await store.readHistory(bob))).not.toContain('alice@x.io');
      expect(await indexKeys(store)).toEqual([]);
      expect(seen.errors).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });

  it('reports a damaged index entry as a typed error and goes on with the others', async () => {
    const { store, agent, clock, counters } = await setup();
    const other = { sessionId: 'other', userId: 'alice' };
    await agent.run(callTools(email('a@x.io')), alice);
    await agent.run(callTools(email('b@x.io')), other);
    const damaged = deadlineKey(alice, START + TIMEOUT);
    const raw = await store.backend.get(damaged);
    await store.backend.write([{ type: 'put', key: damaged, value: raw!.replace('pay', 'pax') }]);
    clock.advance(TIMEOUT);

    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      expectTimedOut(await seen.next(other), counters);
      await until(() => seen.errors.length > 0, 'the damaged entry to be reported');
      expect(seen.errors).toHaveLength(1);
      const [report] = seen.errors;
      expect(report?.error).toBeInstanceOf(InvalidSessionRecordError);
      expect(report?.error).toMatchObject({ code: 'INVALID_SESSION_RECORD', key: damaged });
      // Never acted on: the session behind the damaged entry still waits.
      expect((await agent.runtimeFor(store).getSession(alice)).run?.state).toBe('awaitingApproval');
      expect(seen.continued.map((c) => c.key)).toEqual([other]);
    } finally {
      await scheduler.stop();
    }
  });

  it('never acts on a stale index entry: it drops it and leaves the session as it is', async () => {
    const { store, agent, clock, model, counters } = await setup();
    const runtime = agent.runtimeFor(store);
    const idle = { sessionId: 'idle', userId: 'alice' };
    await runtime.execute(idle, { name: 'touch', createIfMissing: true, apply: async () => {} });
    // A paused run whose real deadline is still ahead.
    await agent.run(callTools(email('a@x.io')), alice);
    const before = [await runtime.getSessionInfo(idle), await runtime.getSessionInfo(alice)];
    // Entries the records do not hold (e.g. left behind by an older agentstate).
    const staleOps = [idle, alice].map((key) => {
      const indexKey = deadlineKey(key, START + 5);
      const value = encodeStored(indexKey, { ...key, deadline: START + 5 });
      return { type: 'put' as const, key: indexKey, value };
    });
    await store.backend.write(staleOps);
    clock.advance(1000); // past the stale deadlines, not the real one
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      const real = deadlineKey(alice, START + TIMEOUT);
      await until(async () => (await indexKeys(store)).length === 1, 'the stale entries to go');
      expect(await indexKeys(store)).toEqual([real]);
      expect([await runtime.getSessionInfo(idle), await runtime.getSessionInfo(alice)]).toEqual(
        before,
      );
      expect(seen.continued).toEqual([]);
      expect(seen.errors).toEqual([]);
      expect(model.calls).toHaveLength(1);
      expect(counters.executed).toEqual({});
      // The real deadline still fires when it comes.
      await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep');
      clock.advance(TIMEOUT);
      expectTimedOut(await seen.next(alice), counters);
    } finally {
      await scheduler.stop();
    }
  });

  it('wakes when a save writes an earlier deadline than the one it sleeps for', async () => {
    const { store, path: _path } = await temps.open();
    const clock = new FakeClock(START);
    const slow = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT * 60 });
    const late = { sessionId: 'late', userId: 'alice' };
    await slow.agent.run(callTools(email('late@x.io')), late);

    const made = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT });
    const seen = observer();
    const scheduler = made.agent.startScheduler(seen.options);
    try {
      await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep until the late one');
      // This runtime saves a run with an earlier deadline: the scheduler re-arms for it.
      await made.agent.run(callTools(email('a@x.io')), alice);
      await until(() => clock.pendingSleepers === 1, 'the scheduler to re-arm');
      clock.advance(TIMEOUT);
      expectTimedOut(await seen.next(alice), made.counters);
      expect(seen.continued.map((c) => c.key)).toEqual([alice]);
      expect(await indexKeys(store)).toEqual([deadlineKey(late, START + TIMEOUT * 60)]);
    } finally {
      await scheduler.stop();
    }
  });

  it('retries a session whose run this process is executing, instead of failing it', async () => {
    const { store, agent, clock, counters } = await setup();
    await agent.run(callTools(email('a@x.io')), alice);
    clock.advance(TIMEOUT);
    // This process executes the session's run (as `agent.resume` would while it runs).
    const live = agent.liveRunsFor(store);
    live.add(cacheKey(alice));
    const seen = observer();
    const scheduler = agent.startScheduler({ ...seen.options, retryDelayMs: 500 });
    try {
      // Skipped (RunInProgressError), not reported, and a retry is armed on the clock.
      await until(() => clock.pendingSleepers === 1, 'the retry to be armed');
      expect(seen.errors).toEqual([]);
      expect(seen.continued).toEqual([]);
      expect(await indexKeys(store)).toEqual([deadlineKey(alice, START + TIMEOUT)]);
      live.delete(cacheKey(alice));
      clock.advance(500);
      expectTimedOut(await seen.next(alice), counters);
      expect(seen.errors).toEqual([]);
      expect(await indexKeys(store)).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });

  it('a scoped runtime (an AgentSession) fires its own session only', async () => {
    const { store, agent, clock } = await setup();
    const session = await agent.createSession({ sessionId: 'mine', userId: 'alice' }, { store });
    await session.run(callTools(email('mine@x.io')));
    await agent.run(callTools(email('a@x.io')), alice);
    clock.advance(TIMEOUT);
    const seen = observer();
    const scheduler = session.runtime.startScheduler(seen.options);
    try {
      await seen.next({ sessionId: 'mine', userId: 'alice' });
      for (let i = 0; i < 20; i++) await zeroTimeout();
      expect(seen.continued.map((c) => c.key)).toEqual([{ sessionId: 'mine', userId: 'alice' }]);
      expect((await agent.runtimeFor(store).getSession(alice)).run?.state).toBe('awaitingApproval');
    } finally {
      await scheduler.stop();
      await session.close();
    }
  });
});

const CHILD = fileURLToPath(new URL('../helpers/scheduler-child.ts', import.meta.url));

function runChild(dbPath: string, request: SchedulerChildRequest): Promise<SchedulerChildReport> {
  return runStoreChild<SchedulerChildReport>(CHILD, dbPath, request);
}
