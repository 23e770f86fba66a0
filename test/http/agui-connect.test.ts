import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  EventType,
  HttpAgent,
  runHttpRequest,
  transformHttpEventStream,
  type BaseEvent,
  type Message,
  type RunAgentInput,
} from '@ag-ui/client';
import { EventSchema, MessageSchema } from '@ag-ui/core/schemas';
import { ModelError, type Item } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { aguiMessagesOf } from '../../src/http/agui-messages.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { GatedModel } from '../helpers/gated-model.js';
import { deferred } from '../helpers/session-fixtures.js';

/**
 * AG-UI's `HttpAgent` with its `connect` sent over HTTP: `HttpAgent` 1.0.0 leaves `connect` to
 * subclasses (`connectAgent()` alone sends nothing). Its request is the client's own `run`
 * request (the same `RunAgentInput`, the same SSE reading) posted to `{url}/connect`, with a new
 * abort controller as `runAgent` takes one (a reloaded stream's was aborted).
 */
class ConnectingAgent extends HttpAgent {
  protected override connect(input: RunAgentInput): ReturnType<HttpAgent['run']> {
    const url = `${this.url}/connect`;
    this.abortController = new AbortController();
    return transformHttpEventStream(runHttpRequest(() => this.fetch(url, this.requestInit(input))));
  }
}

let chat: ChatServer;
let model: GatedModel | undefined;
afterEach(async () => {
  model?.open();
  model = undefined;
  await chat.close();
});

const client = (user: string, threadId: string) =>
  new ConnectingAgent({ url: `${chat.origin}/api/agui`, headers: { 'x-user': user }, threadId });

/** A message as the client keeps it, without the ids it was given. */
const shape = (m: Message) => {
  const { id: _id, ...rest } = m;
  return rest;
};

/**
 * Runs `connectAgent` (or `runAgent`) of `agent`; every event it receives is checked against
 * `@ag-ui/core`'s event schema, and the client warns of nothing. `seen` is told each event.
 */
async function drive(
  agent: HttpAgent,
  how: 'connect' | 'run',
  seen: (event: BaseEvent) => void = () => undefined,
  params: Parameters<HttpAgent['runAgent']>[0] = {},
) {
  const events: BaseEvent[] = [];
  const warn = vi.spyOn(console, 'warn');
  try {
    const onEvent = ({ event }: { event: BaseEvent }) => {
      events.push(event);
      seen(event);
    };
    const result =
      how === 'connect'
        ? await agent.connectAgent(params, { onEvent })
        : await agent.runAgent(params, { onEvent });
    expect(warn.mock.calls.map(String).filter((c) => c.includes('[ag-ui]'))).toEqual([]);
    for (const event of events) expect(EventSchema.safeParse(event).error).toBeUndefined();
    return { ...result, events, types: events.map((e) => String(e.type)) };
  } finally {
    warn.mockRestore();
  }
}

/** Each text message's text as the events spelled it, by message id. */
function texts(events: BaseEvent[]): string[] {
  const byId = new Map<string, string>();
  for (const e of events as (BaseEvent & { messageId?: string; delta?: string })[]) {
    if (e.type === EventType.TEXT_MESSAGE_CONTENT) {
      byId.set(e.messageId!, (byId.get(e.messageId!) ?? '') + e.delta!);
    }
  }
  return [...byId.values()];
}

/** A raw POST of `body` to the connect route as `user`. */
const post = (user: string | undefined, body: unknown, method = 'POST') =>
  chat.as(user, '/api/agui/connect', {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });

const input = (threadId: string) => ({
  threadId,
  runId: 'client-run',
  messages: [],
  tools: [],
  context: [],
});

describe('POST /agui/connect (AG-UI connect) with a run in progress', () => {
  it('a second client connecting mid-run gets the thread and the whole run once, then live; the model is not called again', async () => {
    model = new GatedModel();
    chat = await startChatServer(model);
    const a = client('alice', 't1');
    a.addMessage({ id: 'u1', role: 'user', content: 'add' });
    const running = drive(a, 'run');
    // The run's second model call waits: the tool call and its result are journaled.
    await model.reached.promise;
    const b = client('alice', 't1');
    const replayed = deferred();
    const connected = drive(b, 'connect', (event) => {
      if (event.type === EventType.TOOL_CALL_RESULT) replayed.resolve();
    });
    await replayed.promise;
    expect(b.isRunning).toBe(true);
    model.open();
    const [first, second] = await Promise.all([running, connected]);
    expect(model.callCount).toBe(2);

    const runId = (first.events[0] as BaseEvent & { runId: string }).runId;
    expect(second.types[0]).toBe('RUN_STARTED');
    expect(second.events[0]).toMatchObject({ threadId: 't1', runId });
    expect(second.types[1]).toBe('MESSAGES_SNAPSHOT');
    // The thread before the run: the user's message.
    expect((second.events[1] as BaseEvent & { messages: Message[] }).messages.map(shape)).toEqual([
      { role: 'user', content: 'add' },
    ]);
    expect(second.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      runId,
      outcome: { type: 'success' },
    });
    // The run's events once each: one tool call, one result, the answer's text whole once.
    const count = (type: string) => second.types.filter((t) => t === type).length;
    expect([count('TOOL_CALL_START'), count('TOOL_CALL_RESULT')]).toEqual([1, 1]);
    expect(texts(second.events)).toEqual(['The sum is 5 today.']);
    // The second client holds what the first one does.
    expect(b.messages.map(shape)).toEqual(a.messages.map(shape));
    expect(b.messages.map(shape)).toEqual([
      { role: 'user', content: 'add' },
      {
        role: 'assistant',
        toolCalls: [
          { id: 'add_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        ],
      },
      { role: 'tool', toolCallId: 'add_1', content: '5' },
      { role: 'assistant', content: 'The sum is 5 today.' },
    ]);
  });

  it('the client that started the run, connecting again mid-run, keeps each message once', async () => {
    model = new GatedModel();
    chat = await startChatServer(model);
    const a = client('alice', 't2');
    a.addMessage({ id: 'u1', role: 'user', content: 'add' });
    const leave = new AbortController();
    const seen = deferred();
    // The page's first stream: it has the tool call, then the page reloads (the stream is cut).
    const cut = a
      .runAgent(
        { abortController: leave },
        {
          onEvent: ({ event }) =>
            void (event.type === EventType.TOOL_CALL_RESULT && seen.resolve()),
        },
      )
      .catch(() => undefined);
    await seen.promise;
    await model.reached.promise;
    leave.abort();
    await cut;
    const partial = a.messages.length;
    expect(partial).toBe(3);
    const replayed = deferred();
    const connected = drive(a, 'connect', (event) => {
      if (event.type === EventType.TOOL_CALL_RESULT) replayed.resolve();
    });
    await replayed.promise;
    model.open();
    await connected;
    expect(model.callCount).toBe(2);
    expect(a.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(a.messages.at(-1)).toMatchObject({ content: 'The sum is 5 today.' });
  });
});

describe('POST /agui/connect and a run cancelled while a client follows it', () => {
  it('the connected client ends as the run’s own one: RUN_FINISHED with the cancelled outcome', async () => {
    const gate = deferred();
    const entered = deferred();
    chat = await startChatServer(
      new ScriptedModel(async () => {
        entered.resolve();
        await gate.promise;
        return { text: 'too late' };
      }),
    );
    const a = client('alice', 't6');
    a.addMessage({ id: 'u1', role: 'user', content: 'slow' });
    const running = drive(a, 'run');
    await entered.promise;
    const b = client('alice', 't6');
    const snapshot = deferred();
    const connected = drive(b, 'connect', (event) => {
      if (event.type === EventType.MESSAGES_SNAPSHOT) snapshot.resolve();
    });
    await snapshot.promise;
    const cancelled = await chat.as('alice', '/api/sessions/t6/cancel', { method: 'POST' });
    expect(await cancelled.json()).toEqual({ cancelled: true });
    gate.resolve();
    const [first, second] = await Promise.all([running, connected]);
    expect(first.events.at(-1)).toMatchObject({ outcome: { type: 'cancelled' } });
    expect(second.events.at(-1)).toMatchObject({ outcome: { type: 'cancelled' } });
    // What the model said before the cancel took hold may show, on either client; no more.
    const said = (m: Message) => m.role === 'assistant' && m.content === 'too late';
    expect(b.messages.map(shape)[0]).toEqual({ role: 'user', content: 'slow' });
    expect(b.messages.slice(1).every(said)).toBe(true);
    expect(a.messages.slice(1).every(said)).toBe(true);
  });
});

describe('POST /agui/connect with no run in progress', () => {
  it('answers the thread as a snapshot and RUN_FINISHED; the client keeps the same messages', async () => {
    chat = await startChatServer();
    const a = client('alice', 't3');
    a.addMessage({ id: 'u1', role: 'user', content: 'add' });
    await drive(a, 'run');
    const b = client('alice', 't3');
    const { types, events } = await drive(b, 'connect');
    expect(types).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'success' } });
    expect(b.messages.map(shape)).toEqual(a.messages.map(shape));
    expect(chat.model.callCount).toBe(2);
  });

  it('a run waiting for an approval: the interrupt, which the connected client answers with a resume', async () => {
    chat = await startChatServer();
    const a = client('alice', 't4');
    a.addMessage({ id: 'u1', role: 'user', content: 'pay' });
    await drive(a, 'run');
    const b = client('alice', 't4');
    const { events } = await drive(b, 'connect');
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'interrupt', interrupts: [{ id: 'pay_1', toolCallId: 'pay_1' }] },
    });
    expect(b.pendingInterrupts.map((i) => i.id)).toEqual(['pay_1']);
    const resumed = await drive(b, 'run', undefined, {
      resume: [{ interruptId: 'pay_1', status: 'resolved', payload: { approved: true } }],
    });
    expect(resumed.result).toBe('Pay said: paid 5');
    expect(b.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Pay said: paid 5' });
  });
});

describe('POST /agui/connect after a run paused by a failed model call', () => {
  it('answers the thread, then RUN_ERROR with the typed error, as the run’s own stream ended', async () => {
    chat = await startChatServer(
      new ScriptedModel([{ error: new ModelError('upstream 500', { status: 500 }) }]),
    );
    const a = client('alice', 't7');
    a.addMessage({ id: 'u1', role: 'user', content: 'hi' });
    const first = await drive(a, 'run');
    expect(first.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR' });
    const res = await post('alice', input('t7'));
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    const events = frames.map((f) => EventSchema.parse(JSON.parse(f.slice('data: '.length))));
    expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_ERROR']);
    expect(events[2]).toEqual({
      type: 'RUN_ERROR',
      code: 'MODEL_ERROR',
      message: 'upstream 500',
    });
    // AG-UI's client ends a connect with RUN_ERROR as it ends a run with it: it resolves.
    const c = client('alice', 't7');
    const connected = await drive(c, 'connect');
    expect(connected.types).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_ERROR']);
    expect(c.messages.map(shape)).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('POST /agui/connect refusals', () => {
  it("another user's thread is 404 like a missing one; bad bodies 400; no user 401; GET 405; nothing stored changes", async () => {
    chat = await startChatServer();
    const a = client('alice', 't5');
    a.addMessage({ id: 'u1', role: 'user', content: 'hello' });
    await drive(a, 'run');
    const key = { sessionId: 't5', userId: 'alice' };
    const before = await chat.temp.store.load(key);
    const history = await chat.temp.store.readHistory(key);

    const bob = await post('bob', input('t5'));
    const missing = await post('alice', input('nope'));
    expect([bob.status, missing.status]).toEqual([404, 404]);
    const codes = [await bob.json(), await missing.json()].map(
      (b) => (b as { error: { code: string } }).error.code,
    );
    expect(codes).toEqual(['SESSION_NOT_FOUND', 'SESSION_NOT_FOUND']);
    // AG-UI's client logs the failure it throws.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(client('bob', 't5').connectAgent()).rejects.toThrow('HTTP 404');
    logged.mockRestore();

    const bad = await post('alice', { threadId: 't5', messages: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_BODY' } });
    const notJson = await chat.as('alice', '/api/agui/connect', { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
    expect((await post(undefined, input('t5'))).status).toBe(401);
    expect((await post('alice', undefined, 'GET')).status).toBe(405);

    const after = await chat.temp.store.load(key);
    expect(after?.version).toBe(before?.version);
    expect(await chat.temp.store.readHistory(key)).toEqual(history);
    expect(chat.model.callCount).toBe(1);
  });
});

describe('the snapshot of a thread (aguiMessagesOf)', () => {
  it("gives AG-UI messages by AG-UI's own schema: texts, calls under their text, results, a failed one's error", () => {
    const items: Item[] = [
      { type: 'message', role: 'system', content: 'be brief' },
      { type: 'message', role: 'user', content: 'look it up' },
      { type: 'message', role: 'assistant', content: 'Looking.' },
      { type: 'tool_call', callId: 'c1', name: 'find', arguments: '{"q":"x"}' },
      { type: 'tool_call', callId: 'c2', name: 'find', arguments: '{"q":"y"}' },
      { type: 'tool_result', callId: 'c1', name: 'find', output: 'found' },
      { type: 'tool_result', callId: 'c2', name: 'find', output: 'boom', isError: true },
      { type: 'tool_call', callId: 'c3', name: 'find', arguments: '{}' },
    ];
    const messages = aguiMessagesOf(items, 10);
    for (const m of messages) expect(MessageSchema.safeParse(m).error).toBeUndefined();
    const call = (id: string, args: string) => ({
      id,
      type: 'function',
      function: { name: 'find', arguments: args },
    });
    expect(messages).toEqual([
      { id: 'item-11', role: 'user', content: 'look it up' },
      {
        id: 'item-12',
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [call('c1', '{"q":"x"}'), call('c2', '{"q":"y"}')],
      },
      { id: 'item-15', role: 'tool', toolCallId: 'c1', content: 'found' },
      { id: 'item-16', role: 'tool', toolCallId: 'c2', content: 'boom', error: 'boom' },
      { id: 'item-17', role: 'assistant', toolCalls: [call('c3', '{}')] },
    ]);
  });
});
