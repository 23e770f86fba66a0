import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createChatHandler, type ChatHandlerOptions } from '../../src/http.js';
import { answer, startChatServer, userMessage, type ChatServer } from '../helpers/chat-server.js';
import { dumpBackend } from '../helpers/session-fixtures.js';

let chat: ChatServer;
beforeEach(async () => {
  chat = await startChatServer();
});
afterEach(async () => {
  await chat.close();
});

const dump = () => dumpBackend(chat.temp.store);
const post = (user: string | undefined, path: string, body: string) =>
  chat.as(user, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** The status and JSON body of a refused request. */
async function refusal(res: Response) {
  return {
    status: res.status,
    body: (await res.json()) as { error: { code: string; message: string } },
  };
}

describe('createChatHandler refuses to start without what it needs', () => {
  const agent = new Agent({ name: 'a', model: new ScriptedModel([]) });
  const alice = (): string => 'alice';
  it.each([
    ['no userId resolver', { agent }, /userId/],
    ['a userId that is not a function', { agent, userId: 'alice' }, /userId/],
    ['no agent', { userId: alice }, /agent/],
    ['a basePath ending with /', { agent, userId: alice, basePath: '/api/' }, /basePath/],
    ['an unknown option', { agent, userId: alice, user: 'x' }, /unknown option "user"/],
  ])('%s is a TypeError naming it', (_, options, message) => {
    expect(() => createChatHandler(options as unknown as ChatHandlerOptions)).toThrow(TypeError);
    expect(() => createChatHandler(options as unknown as ChatHandlerOptions)).toThrow(message);
  });
});

describe('createChatHandler refusals change nothing stored', () => {
  beforeEach(async () => {
    await answer(chat.transport('alice'), 'paid', [userMessage('u1', 'pay')]);
  });

  it('no user is 401 on every route', async () => {
    const before = await dump();
    for (const [method, path] of [
      ['POST', '/api/chat'],
      ['POST', '/api/sessions/paid/messages'],
      ['GET', '/api/sessions/paid/messages'],
      ['POST', '/api/sessions/paid/approvals'],
      ['POST', '/api/sessions/paid/cancel'],
    ] as const) {
      const res = await chat.as(undefined, path, {
        method,
        ...(method === 'POST' ? { body: JSON.stringify({ callId: 'pay_1', approved: true }) } : {}),
      });
      expect(await refusal(res)).toEqual({
        status: 401,
        body: { error: { code: 'UNAUTHENTICATED', message: 'No user for this request' } },
      });
    }
    expect(await dump()).toEqual(before);
  });

  it('an unknown route is 404, a wrong method 405 naming the allowed ones', async () => {
    const missing = await refusal(await chat.as('alice', '/api/sessions/paid/nothing'));
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect((await refusal(await chat.as('alice', '/elsewhere'))).status).toBe(404);
    const wrong = await chat.as('alice', '/api/sessions/paid/cancel');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(await wrong.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it.each([
    ['not JSON', '/api/sessions/paid/messages', '{"text": ', 'INVALID_JSON'],
    ['an empty object', '/api/sessions/paid/messages', '{}', 'INVALID_BODY'],
    ['a text that is a number', '/api/sessions/s2/messages', '{"text": 5}', 'INVALID_BODY'],
    ['an empty text', '/api/sessions/s2/messages', '{"text": ""}', 'INVALID_BODY'],
    [
      'a text with a userId beside it',
      '/api/sessions/s2/messages',
      '{"text":"hi","userId":"bob"}',
      'INVALID_BODY',
    ],
    ['messages that are not a list', '/api/chat', '{"id":"s2","messages":"hi"}', 'INVALID_BODY'],
    [
      'a chat body without id',
      '/api/chat',
      JSON.stringify({ messages: [userMessage('u', 'hi')] }),
      'INVALID_BODY',
    ],
    [
      'a last user message without text',
      '/api/chat',
      JSON.stringify({ id: 's2', messages: [{ id: 'u', role: 'user', parts: [] }] }),
      'INVALID_BODY',
    ],
    [
      'a regenerate trigger',
      '/api/chat',
      JSON.stringify({
        id: 's2',
        messages: [userMessage('u', 'hi')],
        trigger: 'regenerate-message',
      }),
      'NOT_SUPPORTED',
    ],
    [
      'a decision without approved',
      '/api/sessions/paid/approvals',
      '{"callId":"pay_1"}',
      'INVALID_BODY',
    ],
    ['an empty decision list', '/api/sessions/paid/approvals', '{"decisions":[]}', 'INVALID_BODY'],
  ])('%s is a typed 400', async (_, path, body, code) => {
    const before = await dump();
    const { status, body: error } = await refusal(await post('alice', path, body));
    expect({ status, code: error.error.code }).toEqual({ status: 400, code });
    expect(error.error.message).toEqual(expect.any(String));
    expect(await dump()).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it('a decision on a call that does not wait is a typed error and changes nothing', async () => {
    const before = await dump();
    const res = await post(
      'alice',
      '/api/sessions/paid/approvals',
      '{"callId":"nope","approved":true}',
    );
    expect(await refusal(res)).toMatchObject({
      status: 400,
      body: { error: { code: 'UNKNOWN_CALL' } },
    });
    expect(await dump()).toEqual(before);
  });

  it("another user's session is not found, exactly as a missing one, and stays as it was", async () => {
    const before = await dump();
    const routes = [
      ['GET', 'messages', undefined],
      ['POST', 'approvals', JSON.stringify({ callId: 'pay_1', approved: true })],
      ['POST', 'cancel', '{}'],
    ] as const;
    for (const [method, action, body] of routes) {
      const theirs = await refusal(
        await chat.as('bob', `/api/sessions/paid/${action}`, { method, ...(body ? { body } : {}) }),
      );
      const missing = await refusal(
        await chat.as('bob', `/api/sessions/nope/${action}`, { method, ...(body ? { body } : {}) }),
      );
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe('SESSION_NOT_FOUND');
      expect(theirs.body.error.message.replace('paid', 'nope')).toBe(missing.body.error.message);
    }
    expect(await dump()).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it("a message to another user's session id starts the sender's own, never touching theirs", async () => {
    const key = { sessionId: 'paid', userId: 'alice' };
    const history = await chat.temp.store.readHistory(key);
    const record = await chat.temp.store.load(key);
    // A body naming alice changes nothing: the user is the resolver's.
    const body = { id: 'paid', userId: 'alice', messages: [userMessage('b1', 'hello')] };
    const res = await post('bob', '/api/chat', JSON.stringify(body));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('pay');
    expect(await chat.temp.store.readHistory(key)).toEqual(history);
    expect((await chat.temp.store.load(key)).version).toBe(record.version);
    const bobs = await chat.as('bob', '/api/sessions/paid/messages');
    expect(((await bobs.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });
});
