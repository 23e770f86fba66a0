import { afterEach, describe, expect, it } from 'vitest';
import {
  ApprovalExpiredError,
  InvalidSessionTransitionError,
  LevelSessionStore,
  RunState,
  writeMetadata,
  type ToolResultItem,
} from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'timers', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };
const START = Date.UTC(2026, 0, 1);
const TIMEOUT = 60_000;
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });
const TIMEOUT_MESSAGE =
  'The call to "send_email" was not approved before its deadline and did not run.';

function lastResults(model: { calls: { items: unknown[] }[] }): ToolResultItem[] {
  const last = model.calls[model.calls.length - 1];
  return (last?.items ?? []).filter(
    (i): i is ToolResultItem => (i as { type: string }).type === 'tool_result',
  );
}

async function pausedWithDeadline() {
  const { store, path } = await temps.open();
  const clock = new FakeClock(START);
  const made = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT });
  const paused = await made.agent.run(callTools(email('bob@example.com')), opts);
  return { store, path, clock, ...made, paused };
}

describe('durable approval deadlines', () => {
  it('stores the deadline as an absolute time on the pending approval', async () => {
    const { paused, clock, store } = await pausedWithDeadline();
    expect(paused.interruptions).toEqual([
      expect.objectContaining({ callId: 'call_1_0', deadline: START + TIMEOUT }),
    ]);
    const view = await approvalAgent(store).agent.runtimeFor(store).getSession(key);
    expect(view.run?.context.calls[0]).toMatchObject({
      deadline: START + TIMEOUT,
      needsApproval: true,
    });
    // The session is unloaded after the pause: no timer is left armed in this process.
    expect(clock.pendingSleepers).toBe(0);
  });

  it('before the deadline, resume without decisions returns still waiting (the timer does not fire)', async () => {
    const { agent, clock, counters, paused } = await pausedWithDeadline();
    clock.advance(TIMEOUT - 1);
    const again = await agent.resume(key.sessionId, { userId: key.userId });
    expect(again).toMatchObject({ interrupted: true, interruptionReason: 'approval' });
    expect(again.interruptions).toEqual(paused.interruptions);
    expect(counters.executed).toEqual({});
    expect(clock.pendingSleepers).toBe(0);

    const done = await agent.resume(again.state.approve('call_1_0'));
    expect(done.output).toBe('Done. send_email: sent to bob@example.com');
  });

  it('past the deadline, a settings action is refused instead of silently resuming the run', async () => {
    const { agent, clock, counters, model, store } = await pausedWithDeadline();
    const runtime = agent.runtimeFor(store);
    const before = await runtime.getSessionInfo(key);
    const modelCalls = model.calls.length;
    clock.advance(TIMEOUT + 1);
    await expect(runtime.execute(key, writeMetadata({ note: 'x' }))).rejects.toBeInstanceOf(
      InvalidSessionTransitionError,
    );
    expect(await runtime.getSessionInfo(key)).toEqual(before);
    expect(model.calls.length).toBe(modelCalls);
    expect(counters.executed).toEqual({});
    expect(clock.pendingSleepers).toBe(0);
  });

  it('past the deadline, resume rejects the call with reason timeout and the model reads why', async () => {
    const { agent, clock, counters, model, store, paused } = await pausedWithDeadline();
    clock.advance(TIMEOUT + 1);
    const done = await agent.resume(key.sessionId, { userId: key.userId });

    expect(done).toMatchObject({ id: paused.id, interrupted: false });
    expect(counters.executed).toEqual({});
    expect(lastResults(model)).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_0',
        name: 'send_email',
        output: TIMEOUT_MESSAGE,
        isError: true,
      },
    ]);
    expect(done.output).toBe(`Done. send_email (error): ${TIMEOUT_MESSAGE}`);
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.state).toBe('active.idle');
  });

  it('restores after the deadline in a new Agent instance (the process was down when it passed)', async () => {
    const { store, path, paused } = await pausedWithDeadline();
    await store.close();
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());

    const later = new FakeClock(START + TIMEOUT * 10);
    const fresh = approvalAgent(reopened, { clock: later, approvalTimeoutMs: TIMEOUT });
    const done = await fresh.agent.resume(key.sessionId, { userId: key.userId });
    expect(done.id).toBe(paused.id);
    expect(fresh.counters.executed).toEqual({});
    expect(lastResults(fresh.model)).toEqual([
      expect.objectContaining({ callId: 'call_1_0', isError: true, output: TIMEOUT_MESSAGE }),
    ]);
    expect(fresh.model.calls).toHaveLength(1);
  });

  it('an approval that arrives after the deadline raises ApprovalExpiredError and changes nothing', async () => {
    const { agent, clock, counters, model, store, paused } = await pausedWithDeadline();
    clock.advance(TIMEOUT * 2);
    const runtime = agent.runtimeFor(store);
    const before = await runtime.getSessionInfo(key);
    const bytes = await dumpBackend(store);
    const modelCalls = model.calls.length;
    const state = RunState.fromJSON(JSON.stringify(paused.state)).approve('call_1_0');
    const error = await agent.resume(state).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalExpiredError);
    expect(error).toMatchObject({
      code: 'APPROVAL_EXPIRED',
      callId: 'call_1_0',
      deadline: START + TIMEOUT,
      sessionId: key.sessionId,
      runId: paused.id,
    });
    expect((error as Error).message).toContain('"call_1_0"');
    expect((error as Error).message).toContain(new Date(START + TIMEOUT).toISOString());
    // Nothing stored changed, nothing ran.
    expect(await dumpBackend(store)).toEqual(bytes);
    expect(await runtime.getSessionInfo(key)).toEqual(before);
    expect(counters.executed).toEqual({});
    expect(model.calls.length).toBe(modelCalls);
    // Resumed without decisions, the deadline takes effect: rejected with reason timeout.
    const done = await agent.resume(key.sessionId, { userId: key.userId });
    expect(counters.executed).toEqual({});
    expect(done.output).toBe(`Done. send_email (error): ${TIMEOUT_MESSAGE}`);
  });

  it('approved before the deadline: the call runs and the timer is disarmed', async () => {
    const { agent, clock, counters, paused } = await pausedWithDeadline();
    clock.advance(TIMEOUT / 2);
    const done = await agent.resume(paused.state.approve('call_1_0'));
    expect(counters.executed).toEqual({ send_email: 1 });
    expect(done.output).toBe('Done. send_email: sent to bob@example.com');
    expect(clock.pendingSleepers).toBe(0);
  });

  it('a restored timer waits only the remainder: it sleeps until the stored absolute deadline', async () => {
    const { store } = await temps.open();
    const fake = new FakeClock(START);
    const sleeps: number[] = [];
    const clock = {
      now: () => fake.now(),
      sleepUntil: (at: number, signal?: AbortSignal) => {
        sleeps.push(at);
        return fake.sleepUntil(at, signal);
      },
    };
    // No lease: its renewal would sleep on this clock too.
    const { agent } = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT, lease: false });
    await agent.run(callTools(email('a@x.io')), opts);
    fake.advance(TIMEOUT / 4);
    const waiting = await agent.resume(key.sessionId, { userId: key.userId });
    expect(waiting.interrupted).toBe(true);
    // Restored 15 s after the check, the timer still targets START + 60 s, not now + 60 s.
    expect(sleeps.length).toBeGreaterThan(0);
    expect(new Set(sleeps)).toEqual(new Set([START + TIMEOUT]));
    expect(fake.pendingSleepers).toBe(0);
  });

  it('with several pending calls, a late decision on any of them is refused whole', async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(START);
    const { agent, counters, model } = approvalAgent(store, { clock, approvalTimeoutMs: TIMEOUT });
    const paused = await agent.run(callTools(email('a@x.io'), email('b@x.io')), opts);
    clock.advance(TIMEOUT);
    const bytes = await dumpBackend(store);
    await expect(
      agent.resume(paused.state.approve('call_1_0').reject('call_1_1', { message: 'no' })),
    ).rejects.toMatchObject({ code: 'APPROVAL_EXPIRED', callId: 'call_1_0' });
    expect(await dumpBackend(store)).toEqual(bytes);
    const done = await agent.resume(key.sessionId, { userId: key.userId });
    expect(counters.executed).toEqual({});
    expect(lastResults(model).map((r) => r.output)).toEqual([TIMEOUT_MESSAGE, TIMEOUT_MESSAGE]);
    expect(done.interrupted).toBe(false);
  });
});
