import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { dumpBackend } from '../helpers/session-fixtures.js';

let chat: ChatServer;
beforeEach(async () => {
  chat = await startChatServer();
  // Alice's thread `paid` waits for the approval of `pay_1`.
  const alice = client('alice', 'paid');
  alice.addMessage({ id: 'u1', role: 'user', content: 'pay' });
  await alice.runAgent();
  expect(alice.pendingInterrupts.map((i) => i.id)).toEqual(['pay_1']);
});
afterEach(async () => {
  await chat.close();
});

const client = (user: string, threadId: string) =>
  new HttpAgent({ url: `${chat.origin}/api/agui`, headers: { 'x-user': user }, threadId });

const dump = () => dumpBackend(chat.temp.store);

/** A raw AG-UI post as `user` (none: no user header). */
const post = (user: string | undefined, body: string) =>
  chat.as(user, '/api/agui', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body,
  });

/** The status and JSON body of a refused request. */
async function refusal(res: Response) {
  return {
    status: res.status,
    body: (await res.json()) as { error: { code: string; message: string } },
  };
}

/** A RunAgentInput on thread `paid` with `rest` over the defaults. */
const input = (rest: Record<string, unknown>) =>
  JSON.stringify({
    threadId: 'paid',
    runId: 'r9',
    messages: [{ id: 'u2', role: 'user', content: 'hello' }],
    tools: [],
    context: [],
    ...rest,
  });

const resumePay = (entry: Record<string, unknown>) =>
  input({ messages: [], resume: [{ interruptId: 'pay_1', ...entry }] });

describe('the AG-UI route refuses what it must, and a refusal changes nothing stored', () => {
  it('no user is 401', async () => {
    const before = await dump();
    expect(await refusal(await post(undefined, resumePay({ status: 'resolved' })))).toEqual({
      status: 401,
      body: { error: { code: 'UNAUTHENTICATED', message: 'No user for this request' } },
    });
    expect(await dump()).toEqual(before);
  });

  it('a GET is 405 naming POST', async () => {
    const res = await chat.as('alice', '/api/agui');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it("another user's thread is not found to AG-UI's client, and stays as it was", async () => {
    const before = await dump();
    const bob = client('bob', 'paid');
    const refused = bob.runAgent({
      resume: [{ interruptId: 'pay_1', status: 'resolved', payload: { approved: true } }],
    });
    await expect(refused).rejects.toMatchObject({
      status: 404,
      payload: { error: { code: 'SESSION_NOT_FOUND' } },
    });
    expect(await dump()).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it("a message to another user's thread id starts the sender's own thread, never touching theirs", async () => {
    const key = { sessionId: 'paid', userId: 'alice' };
    const history = await chat.temp.store.readHistory(key);
    const version = (await chat.temp.store.load(key)).version;
    const bob = client('bob', 'paid');
    bob.addMessage({ id: 'b1', role: 'user', content: 'hello' });
    const { newMessages } = await bob.runAgent();
    expect(newMessages).toEqual([expect.objectContaining({ content: 'You said: hello' })]);
    expect(await chat.temp.store.readHistory(key)).toEqual(history);
    expect((await chat.temp.store.load(key)).version).toBe(version);
  });

  it.each([
    ['not JSON', '{"threadId": ', 'INVALID_JSON'],
    ['an empty object', '{}', 'INVALID_BODY'],
    ['no threadId', input({ threadId: undefined }), 'INVALID_BODY'],
    ['an empty threadId', input({ threadId: '' }), 'INVALID_BODY'],
    ['no runId', input({ runId: undefined }), 'INVALID_BODY'],
    ['messages that are not a list', input({ messages: 'hello' }), 'INVALID_BODY'],
    [
      'a message of an unknown role',
      input({ messages: [{ id: 'x', role: 'boss' }] }),
      'INVALID_BODY',
    ],
    ['no message and nothing resumed', input({ messages: [] }), 'INVALID_BODY'],
    [
      'an assistant message last and nothing resumed',
      input({ messages: [{ id: 'a', role: 'assistant', content: 'hi' }] }),
      'INVALID_BODY',
    ],
    [
      'a user message without text',
      input({ messages: [{ id: 'u', role: 'user', content: [] }] }),
      'INVALID_BODY',
    ],
    [
      "a client-side tool's result",
      input({ messages: [{ id: 't', role: 'tool', toolCallId: 'pay_1', content: 'done' }] }),
      'NOT_SUPPORTED',
    ],
    ['a resolved entry without payload', resumePay({ status: 'resolved' }), 'INVALID_BODY'],
    [
      'a payload whose approved is not a boolean',
      resumePay({ status: 'resolved', payload: { approved: 'yes' } }),
      'INVALID_BODY',
    ],
    ['an unknown status', resumePay({ status: 'maybe' }), 'INVALID_BODY'],
    [
      'an interrupt id that names no waiting call',
      input({ resume: [{ interruptId: 'nope', status: 'resolved', payload: { approved: true } }] }),
      'UNKNOWN_CALL',
    ],
  ])('%s is a typed 400', async (_, body, code) => {
    const before = await dump();
    const { status, body: error } = await refusal(await post('alice', body));
    expect({ status, code: error.error.code }).toEqual({ status: 400, code });
    expect(error.error.message).toEqual(expect.any(String));
    expect(await dump()).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it('a new message while the thread waits on its interrupt is 409 RUN_PAUSED', async () => {
    const before = await dump();
    const { status, body } = await refusal(await post('alice', input({})));
    expect({ status, code: body.error.code }).toEqual({ status: 409, code: 'RUN_PAUSED' });
    expect(await dump()).toEqual(before);
  });
});
