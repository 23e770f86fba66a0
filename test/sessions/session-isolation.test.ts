import { afterEach, describe, expect, it } from 'vitest';
import { SessionNotFoundError, forkSession, sendMessage, writeMetadata } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  alice,
  bob,
  callTool,
  nextTick,
  texts,
  assistantSetup,
} from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const setup = (model?: ScriptedModel) => assistantSetup(temps, model);

/** Collects the process warnings of one type emitted while `fn` runs (and the tick after). */
async function warningsDuring(type: string, fn: () => Promise<unknown>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (warning: Error) => {
    if (warning.name === type) seen.push(warning);
  };
  process.on('warning', listener);
  try {
    await fn();
    await nextTick();
    await nextTick();
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('userId is a hard partition', () => {
  it("user B cannot read, resume, fork or list user A's session", async () => {
    const { agent, runtime, store } = await setup();
    await agent.run('my secret is 42', { sessionId: 'chat', userId: 'alice' });
    const before = await store.load(alice('chat'));

    await expect(runtime.getSession(bob('chat'))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.getSessionInfo(bob('chat'))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(agent.resume('chat', { userId: 'bob', store })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(runtime.execute(bob('chat'), forkSession('stolen'))).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(runtime.execute(bob('chat'), writeMetadata({ x: 1 }))).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    expect((await runtime.listSessions({ userId: 'bob' })).sessions).toEqual([]);
    await expect(store.readHistory(bob('chat'))).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await store.load(alice('chat'))).toEqual(before);
  });

  it("a message to A's sessionId from B creates B's own session that does not see A's history", async () => {
    const { agent, runtime, store, model } = await setup();
    await agent.run('my secret is 42', { sessionId: 'chat', userId: 'alice' });
    const aliceBefore = await store.load(alice('chat'));

    const answer = await agent.run('What did I just say?', { sessionId: 'chat', userId: 'bob' });
    expect(answer.output).toBe('You have not said anything yet.');
    expect(texts(model.calls.at(-1)!.items)).toEqual(['What did I just say?']);
    expect(JSON.stringify(model.calls.at(-1))).not.toContain('secret');

    const bobs = await runtime.getSessionInfo(bob('chat'));
    expect(bobs).toMatchObject({ userId: 'bob', historyLength: 2 });
    expect(await store.load(alice('chat'))).toEqual(aliceBefore);
    expect(texts(await store.readHistory(alice('chat')))).toEqual([
      'my secret is 42',
      'reply: my secret is 42',
    ]);
    expect((await runtime.listSessions({ userId: 'alice' })).sessions.map((s) => s.userId)).toEqual(
      ['alice'],
    );
    expect((await runtime.listSessions({ userId: 'bob' })).sessions.map((s) => s.userId)).toEqual([
      'bob',
    ]);
  });

  it("B cannot approve or resume A's paused run", async () => {
    const { agent, store } = await setup(
      new ScriptedModel([callTool('danger'), { text: 'done' }], { recordCalls: true }),
    );
    const paused = await agent.run('do it', { sessionId: 'job', userId: 'alice' });
    expect(paused.interruptionReason).toBe('approval');
    await expect(agent.resume('job', { userId: 'bob', store })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect((await agent.runtimeFor(store).getSession(alice('job'))).run?.state).toBe(
      'awaitingApproval',
    );
  });

  it('the anonymous bucket and named users never see each other', async () => {
    const { agent, runtime, store } = await setup();
    await agent.run('anonymous note', { sessionId: 'shared' });
    await agent.run('alice note', { sessionId: 'shared', userId: 'alice' });

    expect(texts(await store.readHistory({ sessionId: 'shared' }))).toEqual([
      'anonymous note',
      'reply: anonymous note',
    ]);
    expect(texts(await store.readHistory(alice('shared')))).toEqual([
      'alice note',
      'reply: alice note',
    ]);
    await expect(runtime.getSession(bob('shared'))).rejects.toBeInstanceOf(SessionNotFoundError);

    const anonymous = await runtime.listSessions();
    expect(anonymous.sessions.map((s) => [s.sessionId, s.userId])).toEqual([['shared', undefined]]);
    const named = await runtime.listSessions({ userId: 'alice' });
    expect(named.sessions.map((s) => [s.sessionId, s.userId])).toEqual([['shared', 'alice']]);

    await runtime.execute('anon-only', sendMessage('hi'));
    await expect(runtime.getSession(alice('anon-only'))).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await runtime.execute(alice('alice-only'), sendMessage('hi'));
    await expect(runtime.getSession('alice-only')).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('listing without a userId while named users exist emits an IsolationWarning', async () => {
    const { agent, runtime } = await setup();
    await agent.run('anonymous note', { sessionId: 'a1' });
    const quiet = await warningsDuring('IsolationWarning', () => runtime.listSessions());
    expect(quiet).toEqual([]);

    await agent.run('alice note', { sessionId: 'a2', userId: 'alice' });
    const warned = await warningsDuring('IsolationWarning', async () => {
      const page = await runtime.listSessions();
      expect(page.sessions.map((s) => s.sessionId)).toEqual(['a1']);
    });
    expect(warned).toHaveLength(1);
    expect(warned[0]!.message).toContain('userId');

    const scoped = await warningsDuring('IsolationWarning', () =>
      runtime.listSessions({ userId: 'alice' }),
    );
    expect(scoped).toEqual([]);
  });
});
