import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { createChatHandler } from '../../src/http.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/testing.js';
import { contentText } from '../../src/items/item.js';
import { until } from '../helpers/async.js';
import { JsonLineChild } from '../helpers/json-line-child.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { deferred, lastUserText } from '../helpers/session-fixtures.js';

let chat: ChatServer | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await chat?.close();
  chat = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const pgt = usePostgres();

/** The text deltas of an SSE body, joined. */
const textOf = (body: string) =>
  body
    .split('\n\n')
    .filter((f) => f && f !== 'data: [DONE]')
    .map((f) => JSON.parse(f.slice('data: '.length)) as { type: string; delta?: string })
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('');

describe("the chat handler follows the agent's whileBusy", () => {
  it("'queue': a message posted while the session's run is busy is stored and streams its own answer once", async () => {
    const gate = deferred();
    const entered = deferred();
    const calls: string[] = [];
    const model = new ScriptedModel(async (request) => {
      const said = lastUserText(request);
      calls.push(said);
      if (said === 'slow') {
        entered.resolve();
        await gate.promise;
      }
      return { text: `You said: ${said}` };
    });
    chat = await startChatServer(model, { whileBusy: 'queue' });
    const server = chat;
    const post = (text: string) =>
      server.as('alice', '/api/sessions/q1/messages', {
        method: 'POST',
        body: JSON.stringify({ text }),
      });
    const first = await post('slow');
    expect(first.status).toBe(200);
    await entered.promise;
    const second = post('next'); // answered once the first run ends
    const key = { sessionId: 'q1', userId: 'alice' };
    await until(async () => (await server.temp.store.queuedMessages(key)).length === 1, 'stored');
    gate.resolve();
    expect(textOf(await first.text())).toBe('You said: slow');
    const queued = await second;
    expect(queued.status).toBe(200);
    expect(textOf(await queued.text())).toBe('You said: next');
    expect(calls).toEqual(['slow', 'next']);
    expect(await server.temp.store.queuedMessages(key)).toEqual([]);
    expect((await server.temp.store.readHistory(key)).map((i) => i.type)).toEqual([
      'message',
      'message',
      'message',
      'message',
    ]);
  });
});

describe('the cancel route while a message waits behind the run (issue 40)', () => {
  it.each(['queue', 'steer'] as const)(
    "'%s': the cancel stops the running run, and the waiting message is answered once",
    async (whileBusy) => {
      const gate = deferred();
      const entered = deferred();
      const calls: string[] = [];
      const model = new ScriptedModel(async (request) => {
        const said = lastUserText(request);
        calls.push(said);
        if (said === 'slow') {
          entered.resolve();
          await gate.promise; // never released: only the cancel ends this run
        }
        return { text: `You said: ${said}` };
      });
      chat = await startChatServer(model, { whileBusy });
      const server = chat;
      const session = `c-${whileBusy}`;
      const post = (text: string) =>
        server.as('alice', `/api/sessions/${session}/messages`, {
          method: 'POST',
          body: JSON.stringify({ text }),
        });
      const first = await post('slow');
      expect(first.status).toBe(200);
      await entered.promise;
      const second = post('next');
      const key = { sessionId: session, userId: 'alice' };
      await until(async () => (await server.temp.store.queuedMessages(key)).length === 1, 'stored');
      const cancelled = await server.as('alice', `/api/sessions/${session}/cancel`, {
        method: 'POST',
      });
      expect(cancelled.status).toBe(200);
      expect(textOf(await first.text())).toBe(''); // the running run stopped, unanswered
      const queued = await second;
      expect(queued.status).toBe(200);
      expect(textOf(await queued.text())).toBe('You said: next');
      expect(calls).toEqual(['slow', 'next']);
      expect(await server.temp.store.queuedMessages(key)).toEqual([]);
      const history = await server.temp.store.readHistory(key);
      expect(history.map((i) => (i.type === 'message' ? contentText(i.content) : i.type))).toEqual([
        'slow',
        'next',
        'You said: next',
      ]);
      const view = await server.agent.runtimeFor(server.temp.store).getSession(key);
      expect(view.state).toBe('active.idle');
    },
  );
});

describe('the chat handler on PostgreSQL while another process runs the session', () => {
  it("'queue': 202 MESSAGE_QUEUED, and the message is answered once", async () => {
    const schema = pgt.schema('http_busy');
    // Process A (test/helpers/busy-worker.ts, agent `busy`) runs session `chat` of `u1`.
    const a = await JsonLineChild.start('test/helpers/busy-worker.ts', [
      'pg',
      pgt.url,
      schema,
      'a',
      'queue',
    ]);
    cleanups.push(() => a.stop());
    await a.next('ready');
    a.send('run', { text: 'hold' });
    await until(() => a.events.some((e) => e.event === 'model'), "A's model call");

    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    cleanups.push(() => store.close());
    const calls: string[] = [];
    const model = new ScriptedModel((request) => {
      calls.push(lastUserText(request));
      return { text: `answer to ${lastUserText(request)}` };
    });
    const agent = new Agent({
      name: 'busy',
      model,
      store,
      whileBusy: 'queue',
      lease: { owner: 'b' },
    });
    const handler = createChatHandler({ agent, basePath: '/api', userId: () => 'u1' });
    const url = 'http://app.test/api/sessions/chat/messages';
    const posted = await handler(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'two' }),
      }),
    );
    expect(posted.status).toBe(202);
    const body = (await posted.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('MESSAGE_QUEUED');
    expect(body.error.message).toContain('chat');
    const key = { sessionId: 'chat', userId: 'u1' };
    expect((await store.queuedMessages(key)).map((m) => m.kind)).toEqual(['queue']);

    a.send('release'); // A's run ends and takes the message as its next run
    const texts = async (): Promise<string[]> => {
      const read = await handler(new Request(url));
      expect(read.status).toBe(200);
      const { messages } = (await read.json()) as {
        messages: { role: string; parts: { type: string; text?: string }[] }[];
      };
      return messages.flatMap((m) => m.parts.filter((p) => p.type === 'text').map((p) => p.text!));
    };
    await until(async () => (await texts()).includes('answer to two'), 'the answer to two');
    expect(await texts()).toEqual(['hold', 'answer to hold', 'two', 'answer to two']);
    expect(await store.queuedMessages(key)).toEqual([]);
    // A takes it as its run ends (or this process does, if its own read of the inbox after
    // storing it met A's run already ended): one model call for it in all.
    const modelTexts = a.events.filter((e) => e.event === 'model').map((e) => e.text);
    expect([...modelTexts, ...calls]).toEqual(['hold', 'two']);
  });
});
