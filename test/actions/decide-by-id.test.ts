import { afterEach, describe, expect, it } from 'vitest';
import {
  AlreadyDecidedError,
  ApprovalExpiredError,
  SessionNotFoundError,
  UnknownCallError,
  WrongAgentError,
  type AgentStateError,
} from '../../src/index.js';
import { recordDecisions } from '../../src/actions/record-decisions.js';
import { FakeClock } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 26: an approval is decided by session id and call id (`agent.approve`, `agent.reject`),
 * so a process that never saw the RunState (a webhook, a worker) can decide, with the same
 * checks as `resume`.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const pay = { sessionId: 'pay', userId: 'alice' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });

async function failure<E extends AgentStateError>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

describe('agent.approve(sessionId, callId) and agent.reject(sessionId, callId)', () => {
  it('approve runs the call and continues the run, without a RunState', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store);
    const paused = await agent.run(callTools(email('a@x.io'), email('b@x.io')), pay);
    const [first, second] = paused.interruptions.map((i) => i.callId);

    // One of two: the run still waits for the other.
    const half = await agent.approve('pay', first!, { userId: 'alice' });
    expect(half.interrupted).toBe(true);
    expect(half.interruptions.map((i) => i.callId)).toEqual([second]);
    const again = await failure(
      agent.approve('pay', first!, { userId: 'alice' }),
      AlreadyDecidedError,
    );
    expect(again.message).toBe(`Tool call "${first!}" was already approved`);

    const done = await agent.reject('pay', second!, { userId: 'alice', message: 'not b' });
    expect(done.interrupted).toBe(false);
    expect(done.output).toBe('Done. send_email: sent to a@x.io | send_email (error): not b');
    expect(counters.executed).toEqual({ send_email: 1 });
  });

  it("decides a sub-agent's call by its id alone", async () => {
    const { store } = await temps.open();
    const { triage, seen } = triageWithBilling({ store });
    const paused = await triage.run('please refund order 9', { sessionId: 't', userId: 'alice' });
    const callId = paused.interruptions[0]!.callId;
    const done = await triage.approve('t', callId, { userId: 'alice' });
    expect(done.interrupted).toBe(false);
    expect(seen.refunds).toEqual(['9']);
  });

  it("another user, another agent, an unknown, decided or expired call are resume's typed errors; nothing stored changes", async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { agent, counters } = approvalAgent(store, { clock, approvalTimeoutMs: 60_000 });
    const { agent: other } = approvalAgent(store, { name: 'other', clock });
    const paused = await agent.run(callTools(email('a@x.io')), pay);
    const callId = paused.interruptions[0]!.callId;
    const before = await dumpBackend(store);

    await failure(agent.approve('pay', callId, { userId: 'bob' }), SessionNotFoundError);
    await failure(agent.approve('pay', callId), SessionNotFoundError);
    const wrong = await failure(other.approve('pay', callId, { userId: 'alice' }), WrongAgentError);
    expect(wrong).toMatchObject({ runAgent: 'assistant', agent: 'other' });
    const unknown = await failure(
      agent.reject('pay', 'call_9_9', { userId: 'alice' }),
      UnknownCallError,
    );
    expect(unknown.message).toBe('No tool call "call_9_9" is waiting for approval');
    expect(await dumpBackend(store)).toEqual(before);

    // Decided elsewhere (the command line records it): the decision is named.
    await agent
      .runtimeFor(store)
      .execute(pay, recordDecisions([{ callId, approve: false, message: 'no' }]));
    const recorded = await dumpBackend(store);
    const decided = await failure(
      agent.approve('pay', callId, { userId: 'alice' }),
      AlreadyDecidedError,
    );
    expect(decided).toMatchObject({ code: 'ALREADY_DECIDED', callId, decision: 'rejected' });
    expect(decided.message).toBe(
      `Tool call "${callId}" was already rejected (recorded; it runs when the app resumes the run)`,
    );
    expect(await dumpBackend(store)).toEqual(recorded);

    // Past its deadline.
    const late = await agent.run(callTools(email('c@x.io')), {
      sessionId: 'late',
      userId: 'alice',
    });
    clock.advance(60_000);
    const lateCall = late.interruptions[0]!.callId;
    const lateBefore = await dumpBackend(store);
    await failure(agent.approve('late', lateCall, { userId: 'alice' }), ApprovalExpiredError);
    expect(await dumpBackend(store)).toEqual(lateBefore);
    expect(counters.executed).toEqual({});
  });

  it('bad arguments are TypeErrors at the call', () => {
    const { agent } = approvalAgent(undefined);
    expect(() => agent.approve('', 'c')).toThrow(
      'agent.approve(): the session id must be a non-empty string, got ""',
    );
    expect(() => agent.reject('s', 7 as unknown as string)).toThrow(
      'agent.reject(): the call id must be a non-empty string, got 7',
    );
    expect(() => agent.approve('s', 'c', { message: 'x' } as never)).toThrow(
      /agent\.approve\(\): unknown option "message"/,
    );
    expect(() => agent.reject('s', 'c', { always: 'yes' } as never)).toThrow(/always/);
  });
});
