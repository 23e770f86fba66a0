import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { Agent, tool, type SessionStore } from '../../src/index.js';
import { createChatHandler, toNodeListener } from '../../src/http.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/testing.js';
import { contentText } from '../../src/items/item.js';
import { answer, userMessage } from '../helpers/chat-server.js';
import { openTempStore } from '../helpers/temp-store.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { deferred, lastUserText, type Deferred } from '../helpers/session-fixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const pgt = usePostgres();

/** A handler over `store` whose `charge` tool is not idempotent: it counts its runs. */
async function chargeServer(store: SessionStore, gate?: Deferred<void>, entered?: Deferred<void>) {
  const charged: number[] = [];
  const charge = tool({
    name: 'charge',
    description: 'Charges the card',
    parameters: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      charged.push(amount);
      return `charged ${amount} (#${charged.length})`;
    },
  });
  const model = new ScriptedModel(async (request) => {
    const last = request.items[request.items.length - 1];
    if (last?.type === 'tool_result') return { text: `Done: ${String(last.output)}.` };
    entered?.resolve();
    await gate?.promise;
    const said = lastUserText(request);
    return { toolCalls: [{ name: 'charge', arguments: { amount: said.length }, callId: 'c' }] };
  });
  const agent = new Agent({ name: 'shop', model, tools: [charge], store });
  const handler = createChatHandler({
    agent,
    basePath: '/api',
    userId: (request) => request.headers.get('x-user') ?? undefined,
  });
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${origin}/api/chat`,
    headers: { 'x-user': 'alice' },
  });
  const post = (path: string, body: unknown) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'x-user': 'alice', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { charged, transport, post };
}

const textOf = (message: UIMessage) =>
  message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

async function historyTexts(store: SessionStore, sessionId: string) {
  const items = await store.readHistory({ sessionId, userId: 'alice' });
  return items.map((i) => (i.type === 'message' ? `${i.role}: ${contentText(i.content)}` : i.type));
}

async function leveldb() {
  const temp = await openTempStore();
  cleanups.push(() => temp.cleanup());
  return temp.store;
}

describe('a message id answers once (issue 40)', () => {
  it('the same id posted twice in a row: one turn, the tool ran once, the second gets the same answer', async () => {
    const store = await leveldb();
    const { charged, transport } = await chargeServer(store);
    const messages = [userMessage('m1', 'buy')];
    const first = await answer(transport, 's1', messages);
    const second = await answer(transport, 's1', messages);
    expect(textOf(first.message)).toBe('Done: charged 3 (#1).');
    expect(textOf(second.message)).toBe('Done: charged 3 (#1).');
    expect(charged).toEqual([3]);
    expect(await historyTexts(store, 's1')).toEqual([
      'user: buy',
      'tool_call',
      'tool_result',
      'assistant: Done: charged 3 (#1).',
    ]);
  });

  it('the same id posted twice at once: the second attaches to the first run', async () => {
    const store = await leveldb();
    const gate = deferred();
    const entered = deferred();
    const { charged, transport } = await chargeServer(store, gate, entered);
    const messages = [userMessage('m1', 'buy')];
    const first = answer(transport, 's2', messages);
    await entered.promise;
    const second = answer(transport, 's2', messages);
    gate.resolve();
    const [a, b] = await Promise.all([first, second]);
    expect(textOf(a.message)).toBe('Done: charged 3 (#1).');
    expect(textOf(b.message)).toBe('Done: charged 3 (#1).');
    expect(charged).toEqual([3]);
    expect((await historyTexts(store, 's2')).filter((t) => t.startsWith('user:'))).toEqual([
      'user: buy',
    ]);
  });

  it('the same id posted while its run is still loading the session gets that run, not the previous one', async () => {
    const store = await leveldb();
    // The first post's load of the session waits here: its run is executing, not started yet.
    const loading = deferred();
    const loaded = deferred();
    let hold = false;
    const held = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === 'loadForUpdate' && typeof value === 'function') {
          return async (...args: unknown[]) => {
            if (hold) {
              hold = false;
              loading.resolve();
              await loaded.promise;
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value.bind(target) as unknown) : value;
      },
    });
    const { charged, transport } = await chargeServer(held);
    const earlier = await answer(transport, 's5', [userMessage('m0', 'hi')]);
    expect(textOf(earlier.message)).toBe('Done: charged 2 (#1).');
    hold = true;
    const messages = [userMessage('m0', 'hi'), earlier.message, userMessage('m1', 'buy')];
    const first = answer(transport, 's5', messages);
    await loading.promise;
    const second = answer(transport, 's5', messages);
    loaded.resolve();
    const [a, b] = await Promise.all([first, second]);
    expect(textOf(a.message)).toBe('Done: charged 3 (#2).');
    expect(textOf(b.message)).toBe('Done: charged 3 (#2).');
    expect(charged).toEqual([2, 3]);
  });

  it('a different id is a new turn', async () => {
    const store = await leveldb();
    const { charged, transport } = await chargeServer(store);
    const first = await answer(transport, 's3', [userMessage('m1', 'buy')]);
    const second = await answer(transport, 's3', [
      userMessage('m1', 'buy'),
      first.message,
      userMessage('m2', 'buy it'),
    ]);
    expect(textOf(second.message)).toBe('Done: charged 6 (#2).');
    expect(charged).toEqual([3, 6]);
  });

  it('a message id over the id length limit is a 400 ID_TOO_LONG, and nothing is stored', async () => {
    const store = await leveldb();
    const { charged, transport } = await chargeServer(store);
    await expect(answer(transport, 's4', [userMessage('m'.repeat(257), 'buy')])).rejects.toThrow(
      /ID_TOO_LONG/,
    );
    expect(charged).toEqual([]);
    expect((await store.list({ userId: 'alice' })).sessions).toEqual([]);
  });

  it('on PostgreSQL, the same id posted to another handler over the store is not run again', async () => {
    const schema = pgt.schema('msgid');
    const stores = await Promise.all(
      [0, 1].map(() => PostgresSessionStore.open({ connectionString: pgt.url, schema })),
    );
    for (const s of stores) cleanups.push(() => s.close());
    const a = await chargeServer(stores[0]!);
    const b = await chargeServer(stores[1]!);
    const messages = [userMessage('m1', 'buy')];
    const first = await answer(a.transport, 'p1', messages);
    const second = await answer(b.transport, 'p1', messages);
    expect(textOf(first.message)).toBe('Done: charged 3 (#1).');
    expect(textOf(second.message)).toBe('Done: charged 3 (#1).');
    expect([...a.charged, ...b.charged]).toEqual([3]);
    expect((await historyTexts(stores[1]!, 'p1')).filter((t) => t.startsWith('user:'))).toEqual([
      'user: buy',
    ]);
  });

  it('on PostgreSQL, the same id posted to another handler while the first runs is not run again', async () => {
    const schema = pgt.schema('msgid_busy');
    const stores = await Promise.all(
      [0, 1].map(() => PostgresSessionStore.open({ connectionString: pgt.url, schema })),
    );
    for (const s of stores) cleanups.push(() => s.close());
    const gate = deferred();
    const entered = deferred();
    const a = await chargeServer(stores[0]!, gate, entered);
    const b = await chargeServer(stores[1]!);
    const messages = [userMessage('m1', 'buy')];
    const first = answer(a.transport, 'p2', messages);
    await entered.promise;
    const second = answer(b.transport, 'p2', messages);
    gate.resolve();
    const [x, y] = await Promise.all([first, second]);
    expect(textOf(x.message)).toBe('Done: charged 3 (#1).');
    expect(textOf(y.message)).toBe('Done: charged 3 (#1).');
    expect([...a.charged, ...b.charged]).toEqual([3]);
  });

  it('AG-UI: the same user message id posted twice runs once; the second gets the thread with its answer', async () => {
    const store = await leveldb();
    const { charged, post } = await chargeServer(store);
    const input = (runId: string) => ({
      threadId: 't1',
      runId,
      messages: [{ id: 'm1', role: 'user', content: 'buy' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    const first = await (await post('/api/agui', input('r1'))).text();
    const again = await post('/api/agui', input('r2'));
    expect(again.status).toBe(200);
    const second = await again.text();
    expect(first).toContain('Done: charged 3 (#1).');
    expect(second).toContain('MESSAGES_SNAPSHOT');
    expect(second).toContain('Done: charged 3 (#1).');
    expect(charged).toEqual([3]);
    expect((await historyTexts(store, 't1')).filter((t) => t.startsWith('user:'))).toEqual([
      'user: buy',
    ]);
  });
});
