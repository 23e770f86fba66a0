import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, OpenAIModel, tool } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import {
  completion,
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../helpers/chat-completions-server.js';
import { inspectorClient, liveStream } from '../helpers/inspector-client.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const closing: (InspectorHandle | ChatCompletionsServer)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c.close()));
  await temps.cleanupAll();
});

/**
 * A payments agent on the real OpenAI client (against a local server) with an API key, whose
 * lookup tool fails with the database password in its error (the app redacts it), then asks
 * to pay (a call a human approves), then answers.
 */
async function paymentsApp() {
  const apiKey = `sk-test-${randomBytes(16).toString('hex')}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const server = await startChatCompletionsServer();
  closing.push(server);
  server.enqueue(
    {
      json: completion({
        toolCalls: [{ id: 'call_l', name: 'lookup', arguments: '{"account":"a-1"}' }],
      }),
    },
    { json: completion({ toolCalls: [{ id: 'call_p', name: 'pay', arguments: '{"amount":5}' }] }) },
    { json: completion({ content: 'Paid 5.' }) },
  );
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an account up',
    parameters: z.object({ account: z.string() }),
    execute: () => {
      throw new Error(`database login failed for password ${password}`);
    },
  });
  const pay = tool({
    name: 'pay',
    description: 'Pays',
    parameters: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `paid ${amount}`,
  });
  const temp = await temps.open();
  const agent = new Agent({
    name: 'payments',
    model: new OpenAIModel({ model: 'gpt-4o', apiKey, baseURL: server.baseURL }),
    tools: [lookup, pay],
    store: temp.store,
    redact: (text) => text.replaceAll(password, '[REDACTED]'),
  });
  return { agent, temp, server, secrets: [apiKey, password] };
}

describe('inspector safety', () => {
  it('binds to 127.0.0.1, refuses actions without the header token (changing nothing), refuses rebound host names, and no secret reaches the page, a response or a live frame', async () => {
    const { agent, temp, secrets } = await paymentsApp();
    const inspector = await startInspector({
      runtime: agent.runtimeFor(temp.store),
      userId: 'eve',
    });
    closing.push(inspector);
    expect(inspector.host).toBe('127.0.0.1');
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+$/);
    const client = inspectorClient(inspector);
    const live = liveStream(inspector);
    await live.opened();

    const paused = await agent.run('pay my bill', { sessionId: 'bill', userId: 'eve' });
    expect(paused.interrupted).toBe(true);
    await live.until((text) => text.includes('awaitingApproval'));
    const call = paused.interruptions[0]!;
    const key = { sessionId: 'bill', userId: 'eve' };
    const version = (await temp.store.load(key)).version;

    // actions without the token in its header are refused: none, wrong, in the query string,
    // in a cookie
    const approve = '/api/sessions/bill/approve';
    const body = { callId: call.callId };
    const refused = [
      await client.post(approve, body, {}),
      await client.post(approve, body, { 'x-agentstate-token': `${inspector.token}x` }),
      await client.post(`${approve}?token=${inspector.token}`, body, {}),
      await client.post(approve, body, { cookie: `x-agentstate-token=${inspector.token}` }),
      await client.post('/api/sessions/bill/cancel', {}, {}),
    ];
    for (const answer of refused) {
      expect([answer.status, (answer.json as { error: { code: string } }).error.code]).toEqual([
        403,
        'BAD_TOKEN',
      ]);
    }
    // a request addressed to another host name (DNS rebinding) is refused, reads too
    const rebound = await client.get('/api/sessions', { host: `evil.example:${inspector.port}` });
    expect(rebound.status).toBe(403);
    expect((await client.get('/', { host: `evil.example:${inspector.port}` })).status).toBe(403);
    expect((await temp.store.load(key)).version).toBe(version);
    const still = (await client.get('/api/sessions/bill')).json as { pendingApprovals: unknown[] };
    expect(still.pendingApprovals).toHaveLength(1);

    // with the token in its header it acts
    const done = await client.post(approve, body);
    expect(done.json).toMatchObject({ interrupted: false, output: 'Paid 5.' });

    const detail = await client.get('/api/sessions/bill');
    const runId = (detail.json as { runs: { runId: string }[] }).runs[0]!.runId;
    const texts = [
      (await client.get('/')).text,
      (await client.get('/app.js')).text,
      (await client.get('/app.css')).text,
      (await client.get('/api/info')).text,
      (await client.get('/api/sessions')).text,
      detail.text,
      (await client.get(`/api/sessions/bill/runs/${runId}`)).text,
      (await client.post('/api/sessions/bill/export', {})).text,
      live.text,
    ];
    expect(texts.join('\n')).toContain('[REDACTED]'); // the tool error is shown, scrubbed
    for (const text of texts) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    expect(live.frames().length).toBeGreaterThan(5);
    // frames carry states and event types, never a context or an event's payload
    for (const frame of live.frames()) expect(Object.keys(frame)).not.toContain('context');
    live.close();
  });

  it('refuses bad options with a TypeError naming them', async () => {
    const { agent, temp } = await paymentsApp();
    const runtime = agent.runtimeFor(temp.store);
    await expect(startInspector({ runtime, port: 70_000 })).rejects.toThrow(/option "port"/);
    await expect(startInspector({ runtime, token: 'short' })).rejects.toThrow(/option "token"/);
    await expect(startInspector({ runtime: {} as never })).rejects.toThrow(/option "runtime"/);
    await expect(startInspector({ runtime, allUser: true } as never)).rejects.toThrow(
      /did you mean "allUsers"/,
    );
  });
});
