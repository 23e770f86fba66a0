import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbstractChat, type ChatState, type UIMessage } from 'ai';
import { answer, startChatServer, userMessage, type ChatServer } from '../helpers/chat-server.js';
import { GatedModel } from '../helpers/gated-model.js';
import { deferred } from '../helpers/session-fixtures.js';

let chat: ChatServer;
let model: GatedModel;
beforeEach(async () => {
  model = new GatedModel();
  chat = await startChatServer(model);
});
afterEach(async () => {
  model.open();
  await chat.close();
});

/** The AI SDK's chat as `useChat` runs it, over a plain state (no framework). */
class TestChat extends AbstractChat<UIMessage> {}

/** A message's parts as the UI shows them (ids and step markers aside). */
const shown = (message: UIMessage) => message.parts.filter((p) => p.type !== 'step-start');

/** A chat state holding `messages`; `grown` resolves when a message is added. */
function chatState(messages: UIMessage[]) {
  const grown = deferred();
  const state: ChatState<UIMessage> = {
    status: 'ready',
    error: undefined,
    messages,
    pushMessage: (m) => {
      state.messages.push(m);
      grown.resolve();
    },
    popMessage: () => void state.messages.pop(),
    replaceMessage: (i, m) => {
      state.messages[i] = m;
    },
    snapshot: (thing) => structuredClone(thing),
  };
  return { state, grown };
}

/** Starts a run through `POST /api/chat` and leaves (a reload) once the model's second call waits. */
async function startAndLeave(sessionId: string): Promise<void> {
  const leave = new AbortController();
  const sent = chat
    .as('alice', '/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: sessionId, messages: [userMessage('u1', 'add')] }),
      signal: leave.signal,
    })
    .then((res) => res.body?.cancel())
    .catch(() => undefined);
  await model.reached.promise;
  leave.abort();
  await sent;
}

describe('GET /chat/:id/stream (useChat resume)', () => {
  it("the AI SDK's Chat reconnects mid-run and ends with the message an uninterrupted stream gives", async () => {
    await startAndLeave('c1');
    // The reloaded page: the user's message (from history), then resumeStream (resume: true).
    const { state, grown } = chatState([userMessage('u1', 'add')]);
    const client = new TestChat({ id: 'c1', state, transport: chat.transport('alice') });
    const resumed = client.resumeStream();
    await grown.promise;
    model.open();
    await resumed;
    expect(client.error).toBeUndefined();
    expect(model.callCount).toBe(2); // the reconnect called the model again: never
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // The same question in a session nobody left.
    const whole = await answer(chat.transport('alice'), 'c2', [userMessage('u1', 'add')]);
    expect(shown(state.messages[1]!)).toEqual(shown(whole.message));
    expect(shown(whole.message)).toEqual([
      expect.objectContaining({ type: 'tool-add', state: 'output-available', output: '5' }),
      expect.objectContaining({ type: 'text', text: 'The sum is 5 today.', state: 'done' }),
    ]);
  });

  it('sends SSE ids; Last-Event-ID goes on after that event, not repeating it', async () => {
    await startAndLeave('c3');
    const res = await chat.as('alice', '/api/chat/c3/stream');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reader = res.body!.getReader();
    const read = (await reader.read()) as { value?: Uint8Array };
    const first = new TextDecoder().decode(read.value);
    const id = /^id: (.+)$/m.exec(first)?.[1];
    expect(id).toMatch(/:\d+:\d+$/);
    await reader.cancel();
    const again = chat.as('alice', '/api/chat/c3/stream', { headers: { 'last-event-id': id! } });
    const text = await again.then(async (r) => {
      model.open();
      return r.text();
    });
    expect(text).not.toContain(`id: ${id}\n`);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).toContain('"type":"tool-output-available"');
  });

  it("204 when no run is in progress; another user's session 404 like a missing one", async () => {
    model.open();
    await answer(chat.transport('alice'), 'c4', [userMessage('u1', 'hello')]);
    expect((await chat.as('alice', '/api/chat/c4/stream')).status).toBe(204);
    const bob = await chat.as('bob', '/api/chat/c4/stream');
    const missing = await chat.as('bob', '/api/chat/nope/stream');
    expect([bob.status, missing.status]).toEqual([404, 404]);
    const codes = [await bob.json(), await missing.json()].map(
      (b) => (b as { error: { code: string } }).error.code,
    );
    expect(codes).toEqual(['SESSION_NOT_FOUND', 'SESSION_NOT_FOUND']);
    expect((await chat.as('alice', '/api/chat/c4/stream?after=bad')).status).toBe(400);
  });
});
