import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  RunState,
  SessionRuntime,
  WrongAgentError,
  continueRun,
  type RunResult,
  type SessionKey,
} from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { deferred, zeroTimeout } from '../helpers/async.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 26: a session's run is continued only by the agent that runs it. An outside tester
 * approved a refund through `agentstate inspect --agent refunder.js` in a session of agent
 * `triage`: the child failed, the parent completed with the refunder's model and the refund
 * never ran. Every resume by another agent is now `WrongAgentError` and changes nothing stored.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const tree: SessionKey = { sessionId: 'tree', userId: 'alice' };

/** A triage session whose billing sub-agent waits for a refund's approval, and a refunder. */
async function pausedTree() {
  const { store } = await temps.open();
  const fixture = triageWithBilling({ store });
  const paused = await fixture.triage.run('please refund order 9', tree);
  expect(paused.interruptions.map((i) => i.toolName)).toEqual(['refund']);
  const refunder = new Agent({
    name: 'refunder',
    model: new ScriptedModel(() => ({ text: 'refunder: done' })),
    store,
  });
  return { store, paused, refunder, ...fixture };
}

async function wrongAgent(promise: Promise<unknown>): Promise<WrongAgentError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongAgentError);
  return error as WrongAgentError;
}

describe('a run is continued only by the agent that runs it', () => {
  it('resume, streamResume, a RunState and continueRun by another agent are WRONG_AGENT; nothing stored changes', async () => {
    const { store, paused, refunder, billing, seen, triage } = await pausedTree();
    const callId = paused.interruptions[0]!.callId;
    const before = await dumpBackend(store);

    const error = await wrongAgent(refunder.resume('tree', { userId: 'alice' }));
    expect(error).toMatchObject({
      code: 'WRONG_AGENT',
      sessionId: 'tree',
      runId: paused.id,
      runAgent: 'triage',
      agent: 'refunder',
    });
    expect(error.message).toBe(
      `Session "tree"'s run is run by agent "triage", not "refunder": continue it with agent "triage"`,
    );
    // The sub-agent whose call it is does not run the session's run either.
    await wrongAgent(billing.resume(paused.state.approve(callId), { store }));
    await wrongAgent(refunder.resume(RunState.fromJSON(paused.state.approve(callId).toJSON())));
    const events: unknown[] = [];
    await wrongAgent(
      (async () => {
        for await (const event of refunder.streamResume('tree', { userId: 'alice' })) {
          events.push(event);
        }
      })(),
    );
    expect(events).toEqual([]);
    const runtime = new SessionRuntime({ store, agent: refunder });
    await wrongAgent(runtime.execute(tree, continueRun()));

    expect(await dumpBackend(store)).toEqual(before);
    expect(seen.refunds).toEqual([]);

    // The agent that runs it still can.
    const done = await triage.resume(paused.state.approve(callId));
    expect(done.interrupted).toBe(false);
    expect(seen.refunds).toEqual(['9']);
  });

  it("another agent's scheduler leaves a due deadline alone; the run's own agent fires it", async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { agent: assistant, counters } = approvalAgent(store, {
      clock,
      approvalTimeoutMs: 60_000,
    });
    const key = { sessionId: 'pay', userId: 'alice' };
    const email = { name: 'send_email', arguments: { to: 'a@x.io', body: 'hi' } };
    expect((await assistant.run(callTools(email), key)).interrupted).toBe(true);
    // Another agent's session waits too, with a later deadline: the scheduler sleeps until it.
    const { agent: other } = approvalAgent(store, {
      name: 'other',
      clock,
      approvalTimeoutMs: 120_000,
    });
    const later = { sessionId: 'later', userId: 'alice' };
    expect((await other.run(callTools(email), later)).interrupted).toBe(true);
    clock.advance(60_000);
    const before = await dumpBackend(store);
    const errors: unknown[] = [];
    const continued: unknown[] = [];
    const scheduler = other.startScheduler({
      onError: (e) => errors.push(e),
      onContinued: (e) => continued.push(e),
    });
    try {
      // One pass over the due entry (another agent's), then it sleeps until its own deadline.
      for (let i = 0; i < 5000 && clock.pendingSleepers === 0; i++) await zeroTimeout();
      expect(clock.pendingSleepers).toBe(1);
    } finally {
      await scheduler.stop();
    }
    expect(errors).toEqual([]);
    expect(continued).toEqual([]);
    expect(await dumpBackend(store)).toEqual(before);

    let fired: RunResult<unknown> | undefined;
    const own = assistant.startScheduler({
      onError: (e) => errors.push(e),
      onContinued: (e) => {
        fired = e.result;
      },
    });
    try {
      for (let i = 0; i < 5000 && !fired; i++) await zeroTimeout();
    } finally {
      await own.stop();
    }
    expect(errors).toEqual([]);
    expect(fired?.interrupted).toBe(false);
    expect(counters.executed).toEqual({});
  });

  it("another agent's recover leaves a dead owner's run alone; the run's own agent in another process recovers it", async () => {
    const storeClock = new FakeClock(Date.UTC(2026, 0, 1));
    const { store } = await temps.open({ clock: storeClock });
    const gate = deferred();
    let calls = 0;
    const gated = new ScriptedModel(async () => {
      calls += 1;
      await gate.promise;
      return { text: 'late' };
    });
    const process = (name: string, model: ScriptedModel, owner: string, clock: FakeClock) =>
      new Agent({ name, model, store, clock, lease: { owner, ttlMs: 10_000 } });
    // The first process stops renewing its lease (its clock never moves): it hung.
    const hung = process('assistant', gated, 'p1', new FakeClock(storeClock.now()));
    const running = hung.run('hello', { sessionId: 'crashed', userId: 'alice' });
    for (let i = 0; i < 5000 && calls === 0; i++) await zeroTimeout();
    storeClock.advance(10_001);
    const reply = new ScriptedModel(() => ({ text: 'recovered' }));
    const before = await dumpBackend(store);
    const other = process('other', reply, 'p2', storeClock).runtimeFor(store);
    expect(await other.recover({ olderThan: 0, userId: 'alice' })).toEqual([]);
    expect(await dumpBackend(store)).toEqual(before);

    const same = process('assistant', reply, 'p3', storeClock).runtimeFor(store);
    const recovered = await same.recover({ olderThan: 0, userId: 'alice' });
    expect(recovered).toMatchObject([{ result: { output: 'recovered' } }]);
    gate.resolve();
    await running.catch(() => undefined); // its late write is fenced
  });
});
