import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing.js';
import { until } from '../helpers/async.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { deferred, lastUserText } from '../helpers/session-fixtures.js';

let chat: ChatServer | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

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
