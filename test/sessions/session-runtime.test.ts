import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  SessionNotFoundError,
  SessionRuntime,
  sendMessage,
  suspendSession,
  writeMetadata,
  type SessionRuntimeEventType,
} from '../../src/index.js';
import { alice, echoModel } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

async function setup() {
  const { store } = await temps.open();
  const agent = new Agent({ name: 'assistant', model: echoModel() });
  return { store, runtime: new SessionRuntime({ store, agent }) };
}

/** Records every runtime event in order, as `Type:sessionId`. */
function recordEvents(runtime: SessionRuntime): string[] {
  const seen: string[] = [];
  const types: SessionRuntimeEventType[] = [
    'SessionLoaded',
    'SessionActionExecuted',
    'SessionSaved',
    'SessionLoadFailed',
    'SessionSaveFailed',
  ];
  for (const type of types)
    runtime.on(type, (event) => seen.push(`${event.type}:${event.key.sessionId}`));
  return seen;
}

describe('SessionRuntime', () => {
  it('execute returns the action result; getSession and getSessionInfo describe the stored session', async () => {
    const { runtime } = await setup();
    const result = await runtime.execute(alice('chat'), sendMessage('hello'));
    expect(result).toMatchObject({
      sessionId: 'chat',
      userId: 'alice',
      output: 'reply: hello',
      interrupted: false,
    });
    const info = await runtime.getSessionInfo(alice('chat'));
    expect(info).toMatchObject({
      sessionId: 'chat',
      userId: 'alice',
      status: 'active',
      historyLength: 2,
    });
    expect(info).not.toHaveProperty('snapshot');
    expect(info.usage).toMatchObject({ turns: 1, inputTokens: 10, outputTokens: 5 });
    const view = await runtime.getSession(alice('chat'));
    expect(view).toMatchObject({ ...info, state: 'active.idle', historyFrom: 0, run: undefined });
    expect(view.lastRun).toMatchObject({ status: 'completed', output: 'reply: hello', turn: 1 });
  });

  it('a plain string target is the anonymous session of that id', async () => {
    const { runtime } = await setup();
    await runtime.execute('anon', sendMessage('hi'));
    expect(await runtime.getSessionInfo({ sessionId: 'anon' })).toMatchObject({
      userId: undefined,
    });
    await expect(runtime.getSessionInfo(alice('anon'))).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it('read methods never change the version or write anything', async () => {
    const { runtime, store } = await setup();
    await runtime.execute(alice('chat'), sendMessage('hello'));
    const before = await store.load(alice('chat'));
    const stats = store.stats();
    for (let i = 0; i < 3; i += 1) {
      await runtime.getSession(alice('chat'));
      await runtime.getSessionInfo(alice('chat'));
      await runtime.listSessions({ userId: 'alice' });
    }
    expect(await store.load(alice('chat'))).toEqual(before);
    expect(store.stats()).toEqual(stats);
    expect((await runtime.getSessionInfo(alice('chat'))).version).toBe(before.version);
  });

  it('each save raises the version by one', async () => {
    const { runtime } = await setup();
    await runtime.execute(alice('chat'), sendMessage('hello'));
    const v = (await runtime.getSessionInfo(alice('chat'))).version;
    await runtime.execute(alice('chat'), writeMetadata({ a: 1 }));
    expect((await runtime.getSessionInfo(alice('chat'))).version).toBe(v + 1);
  });

  it('listSessions filters by user and status and pages with limit and cursor', async () => {
    const { runtime } = await setup();
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    for (const id of ids) await runtime.execute(alice(id), sendMessage(`hello ${id}`));
    await runtime.execute({ sessionId: 'b1', userId: 'bob' }, sendMessage('hi'));
    await runtime.execute(alice('s2'), suspendSession());
    await runtime.execute(alice('s4'), suspendSession());

    const all = await runtime.listSessions({ userId: 'alice' });
    expect(all.sessions.map((s) => s.sessionId)).toEqual(ids);
    expect(all.nextCursor).toBeUndefined();
    expect(all.sessions.every((s) => s.userId === 'alice')).toBe(true);

    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await runtime.listSessions({ userId: 'alice', limit: 2, cursor });
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      paged.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(paged).toEqual(ids);
    expect(pages).toBe(3);

    const suspended = await runtime.listSessions({ userId: 'alice', status: 'suspended' });
    expect(suspended.sessions.map((s) => [s.sessionId, s.status])).toEqual([
      ['s2', 'suspended'],
      ['s4', 'suspended'],
    ]);
    const active = await runtime.listSessions({ userId: 'alice', status: 'active', limit: 2 });
    expect(active.sessions.map((s) => s.sessionId)).toEqual(['s1', 's3']);
    const rest = await runtime.listSessions({
      userId: 'alice',
      status: 'active',
      limit: 2,
      cursor: active.nextCursor,
    });
    expect(rest.sessions.map((s) => s.sessionId)).toEqual(['s5']);
  });
});

describe('SessionRuntime events', () => {
  it('reports loads, saves and executed actions', async () => {
    const { runtime } = await setup();
    await runtime.execute(alice('chat'), sendMessage('hello'));
    const seen = recordEvents(runtime);
    const saved: number[] = [];
    runtime.on('SessionSaved', (event) => saved.push(event.version));
    await runtime.execute(alice('chat'), writeMetadata({ topic: 'x' }));
    expect(seen).toEqual(['SessionLoaded:chat', 'SessionSaved:chat', 'SessionActionExecuted:chat']);
    const info = await runtime.getSessionInfo(alice('chat'));
    expect(saved).toEqual([info.version]);
  });

  it('a message run emits a save per step and one SessionActionExecuted', async () => {
    const { runtime } = await setup();
    const seen = recordEvents(runtime);
    const executed: string[] = [];
    runtime.on('SessionActionExecuted', (event) => executed.push(event.action));
    await runtime.execute(alice('chat'), sendMessage('hello'));
    expect(executed).toEqual(['sendMessage']);
    expect(seen.filter((e) => e === 'SessionSaved:chat').length).toBeGreaterThanOrEqual(1);
    expect(seen.at(-1)).toBe('SessionActionExecuted:chat');
    expect(seen).not.toContain('SessionSaveFailed:chat');
  });

  it('emits SessionLoadFailed when a missing session is read', async () => {
    const { runtime } = await setup();
    const failures: unknown[] = [];
    runtime.on('SessionLoadFailed', (event) => failures.push(event.error));
    await expect(runtime.getSession(alice('nope'))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.execute(alice('nope'), writeMetadata({ a: 1 }))).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    expect(failures).toHaveLength(2);
    expect(failures[0]).toBeInstanceOf(SessionNotFoundError);
  });

  it('a throwing listener does not fail the action; unsubscribe stops delivery', async () => {
    const { runtime } = await setup();
    runtime.on('SessionSaved', () => {
      throw new Error('listener bug');
    });
    let count = 0;
    const off = runtime.on('SessionActionExecuted', () => {
      count += 1;
    });
    await runtime.execute(alice('chat'), sendMessage('hello'));
    off();
    await runtime.execute(alice('chat'), sendMessage('again'));
    expect(count).toBe(1);
  });
});
