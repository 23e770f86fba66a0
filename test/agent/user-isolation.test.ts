import { afterEach, describe, expect, it } from 'vitest';
import {
  SessionNotFoundError,
  changeBudget,
  continueRun,
  deleteSession,
  forkSession,
  resumeSession,
  sendMessage,
  suspendSession,
  writeMetadata,
  type SessionAction,
  type SessionKey,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { assistantSetup, callTool, dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 9, point 3: no action or read crosses users. */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const OWNER = { sessionId: 'chat', userId: 'alice' };
/** Everyone who is not alice: another user, the anonymous bucket, `''`, a case variant. */
const INTRUDERS: [string, SessionKey][] = [
  ['another user', { sessionId: 'chat', userId: 'bob' }],
  ['the anonymous user', { sessionId: 'chat' }],
  ['the empty userId', { sessionId: 'chat', userId: '' }],
  ['a case variant of the id', { sessionId: 'chat', userId: 'Alice' }],
];

/** Every action on a session except sendMessage (which creates the caller's own session). */
const ACTIONS: [string, () => SessionAction<unknown>][] = [
  ['continueRun', () => continueRun({ decisions: [{ callId: 'call_1_0', approve: true }] })],
  ['suspendSession', () => suspendSession()],
  ['resumeSession', () => resumeSession()],
  ['writeMetadata', () => writeMetadata({ tenant: 'evil' })],
  ['changeBudget', () => changeBudget({ maxTurns: 99 })],
  ['forkSession', () => forkSession('stolen')],
  ['deleteSession', () => deleteSession()],
  ['deleteSession (purge)', () => deleteSession({ purge: true })],
];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

/** Alice's session paused on an approval, and the agent's run that paused it. */
async function pausedSession() {
  // asks for the approval-gated tool, then answers once it has a result (in any session)
  const model = new ScriptedModel(
    (request) =>
      request.items.at(-1)?.type === 'tool_result' ? { text: 'done' } : callTool('danger'),
    { recordCalls: true },
  );
  const setup = await assistantSetup(temps, model);
  const paused = await setup.agent.run('do it', OWNER);
  expect(paused.interruptionReason).toBe('approval');
  return { ...setup, paused };
}

describe.each(INTRUDERS)('as %s', (_who, intruder) => {
  it("every action on alice's session is not found and stores nothing", async () => {
    const { runtime, store } = await pausedSession();
    const before = await dumpBackend(store);
    for (const [name, action] of ACTIONS) {
      const error = await rejection(runtime.execute(intruder, action()));
      expect(error, name).toBeInstanceOf(SessionNotFoundError);
    }
    expect(await dumpBackend(store)).toEqual(before);
    expect((await runtime.getSession(OWNER)).run?.state).toBe('awaitingApproval');
  });

  it("every read path of alice's session is not found or empty", async () => {
    const { runtime, store } = await pausedSession();
    const before = await dumpBackend(store);
    await expect(runtime.getSession(intruder)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.getSessionInfo(intruder)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.readHistory(intruder)).rejects.toBeInstanceOf(SessionNotFoundError);
    const page = await runtime.listSessions({ userId: intruder.userId });
    expect(page.sessions).toEqual([]);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it("sendMessage starts the caller's own session and leaves alice's untouched", async () => {
    const { runtime, store, model } = await pausedSession();
    const aliceBefore = await store.load(OWNER);
    const aliceHistory = await store.readHistory(OWNER);
    await runtime.execute(intruder, sendMessage('what is pending?'));
    expect(model.calls.at(-1)!.items.map((i) => i.type)).toEqual(['message']);
    expect(await store.load(OWNER)).toEqual(aliceBefore);
    expect(await store.readHistory(OWNER)).toEqual(aliceHistory);
    expect((await runtime.getSessionInfo(intruder)).userId).toBe(intruder.userId);
  });

  it("agent.resume of alice's approved RunState or session id is not found", async () => {
    const { agent, runtime, store, paused } = await pausedSession();
    const before = await dumpBackend(store);
    const approved = paused.state.approve(paused.interruptions[0]!.callId);
    if (intruder.userId === '') {
      // the public API refuses an empty userId at the call: a programmer mistake
      expect(() => agent.resume(approved, { userId: '' })).toThrow(TypeError);
      expect(() => agent.resume('chat', { userId: '', store })).toThrow(TypeError);
    } else {
      const byState = await rejection(agent.resume(approved, { userId: intruder.userId }));
      expect(byState).toBeInstanceOf(SessionNotFoundError);
      const byId = await rejection(agent.resume('chat', { userId: intruder.userId, store }));
      expect(byId).toBeInstanceOf(SessionNotFoundError);
    }
    expect(await dumpBackend(store)).toEqual(before);
    expect((await runtime.getSession(OWNER)).run?.state).toBe('awaitingApproval');
  });

  it("an AgentSession of alice refuses the caller's key, and the caller's RunState", async () => {
    const { agent, store } = await pausedSession();
    // the caller has a paused session of its own under the same session id
    const own = await agent.runtimeFor(store).execute(intruder, sendMessage('do it'));
    expect(own.interruptionReason).toBe('approval');
    const session = await agent.createSession(OWNER, { store });
    const before = await dumpBackend(store);

    for (const [name, action] of [...ACTIONS, ['sendMessage', () => sendMessage('hi')] as const]) {
      const error = await rejection(session.runtime.execute(intruder, action()));
      expect(error, name).toBeInstanceOf(SessionNotFoundError);
    }
    await expect(session.runtime.getSession(intruder)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(session.runtime.getSessionInfo(intruder)).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect((await session.runtime.listSessions({ userId: intruder.userId })).sessions).toEqual([]);
    const state = own.state.approve(own.interruptions[0]!.callId);
    await expect(session.resume(state)).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await dumpBackend(store)).toEqual(before);
    await session.close();
  });
});

describe('an AgentSession serves only its own (user, session)', () => {
  it("refuses the same user's other sessions and lists only its own", async () => {
    const { agent, store, paused } = await pausedSession();
    await agent.run('hello', { sessionId: 'other', userId: 'alice', store });
    const session = await agent.createSession(OWNER, { store });
    const before = await dumpBackend(store);
    const other = { sessionId: 'other', userId: 'alice' };
    const error = await rejection(session.runtime.execute(other, sendMessage('hi')));
    expect(error).toBeInstanceOf(SessionNotFoundError);
    await expect(session.runtime.getSession('chat')).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(session.runtime.getSession(other)).rejects.toBeInstanceOf(SessionNotFoundError);
    const listed = await session.runtime.listSessions({ userId: 'alice' });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual(['chat']);
    expect(await dumpBackend(store)).toEqual(before);

    // its own key still works: approve and resume through the session
    expect((await session.runtime.getSession(OWNER)).run?.state).toBe('awaitingApproval');
    const done = await session.resume(paused.state.approve(paused.interruptions[0]!.callId));
    expect(done).toMatchObject({ interrupted: false, output: 'done', userId: 'alice' });
    await session.close();
  });
});
