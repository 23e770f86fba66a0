import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createA2AHandler, type A2AHandlerOptions } from '../../src/a2a.js';
import { sendRequest, startA2AServer, userMessage, type A2AServer } from '../helpers/a2a-server.js';
import { dumpBackend } from '../helpers/session-fixtures.js';

let server: A2AServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const rpc = (method: string, params: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('createA2AHandler: bad input gets typed errors and changes nothing', () => {
  it('refuses to start without a userId resolver or a card URL (a TypeError naming the option)', () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([]) });
    const card = { url: 'http://127.0.0.1:1/' };
    expect(() => createA2AHandler({ agent, card } as unknown as A2AHandlerOptions)).toThrow(
      /createA2AHandler\(\): option "userId"/,
    );
    expect(() =>
      createA2AHandler({ agent, userId: () => 'u', card: {} } as unknown as A2AHandlerOptions),
    ).toThrow(/option "card.url"/);
    expect(() => createA2AHandler({ agent, userId: () => 'u', card, basePath: 'a2a/' })).toThrow(
      /option "basePath"/,
    );
    expect(() =>
      createA2AHandler({
        agent,
        userId: () => 'u',
        card,
        cards: 1,
      } as unknown as A2AHandlerOptions),
    ).toThrow(/unknown option "cards"/);
  });

  it("malformed JSON-RPC, unknown methods and tasks, another user's task: JSON-RPC errors, the store unchanged", async () => {
    server = await startA2AServer();
    const alice = await server.client('alice');
    const paused = await alice.sendMessage(
      sendRequest(userMessage('pay', { messageId: 'm1', contextId: 's1' })),
    );
    const taskId = (paused as { id: string }).id;
    const before = await dumpBackend(server.temp.store);

    const errorOf = async (response: Response) => {
      expect(response.status).toBe(200);
      return (await response.json()) as { id: unknown; error: { code: number } };
    };
    // Not JSON: the parse error; JSON that is no JSON-RPC request: the invalid request error.
    expect(
      await errorOf(await server.post('alice', '{"jsonrpc": "2.0", "method": ')),
    ).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    expect(await errorOf(await server.post('alice', { hello: 'world' }))).toMatchObject({
      error: { code: -32600 },
    });
    expect(
      await errorOf(await server.post('alice', { jsonrpc: '2.0', id: 7, method: 42 })),
    ).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    expect(await errorOf(await server.post('alice', rpc('NoSuchMethod', {})))).toMatchObject({
      error: { code: -32601 },
    });
    // A message without text, a decisions part that is not one: invalid params.
    const noText = { message: { messageId: 'x1', role: 'ROLE_USER', parts: [] } };
    expect(await errorOf(await server.post('alice', rpc('SendMessage', noText)))).toMatchObject({
      error: { code: -32602 },
    });
    const badDecisions = {
      message: {
        messageId: 'x2',
        taskId,
        role: 'ROLE_USER',
        parts: [{ data: { agentstate: { decisions: [{ callId: 'c', decision: 'maybe' }] } } }],
      },
    };
    expect(
      await errorOf(await server.post('alice', rpc('SendMessage', badDecisions))),
    ).toMatchObject({
      error: { code: -32602 },
    });
    // Unknown tasks: a task id that names no run, one that is no task id at all.
    for (const id of ['s1:01NOSUCHRUN', 'nosuchsession:01NOSUCHRUN', 'not-a-task-id']) {
      expect(await errorOf(await server.post('alice', rpc('GetTask', { id })))).toMatchObject({
        error: { code: -32001 },
      });
    }
    // Another user's task is not found, whatever the call.
    const bob = await server.client('bob');
    await expect(bob.getTask({ tenant: '', id: taskId })).rejects.toThrow(/not found/);
    await expect(bob.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow(
      /not found/,
    );
    await expect(
      (async () => {
        for await (const _ of bob.resubscribeTask({ tenant: '', id: taskId })) void _;
      })(),
    ).rejects.toThrow(/not found/);
    await expect(
      bob.sendMessage(sendRequest(userMessage('approve', { messageId: 'b1', taskId }))),
    ).rejects.toThrow(/not found/);
    // No user: 401 before any JSON-RPC; another method or path: 405, 404.
    expect((await server.post(undefined, rpc('GetTask', { id: taskId }))).status).toBe(401);
    expect((await fetch(`${server.origin}/a2a`, { headers: { 'x-user': 'alice' } })).status).toBe(
      405,
    );
    expect((await server.post('alice', rpc('GetTask', { id: taskId }), {})).status).toBe(200);
    expect((await fetch(`${server.origin}/elsewhere`, { method: 'POST' })).status).toBe(404);
    // A version the handler does not serve.
    expect(
      await errorOf(
        await server.post('alice', rpc('GetTask', { id: taskId }), { 'a2a-version': '9.9' }),
      ),
    ).toMatchObject({ error: { code: -32009 } });

    expect(await dumpBackend(server.temp.store)).toEqual(before);
  });

  it('a body over maxBodyBytes is a 413, a page of another origin a 403, before any JSON-RPC', async () => {
    server = await startA2AServer({ maxBodyBytes: 200 });
    const big = rpc('GetTask', { id: 'x'.repeat(500) });
    const tooLarge = await server.post('alice', big);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });
    const foreign = await server.post('alice', rpc('GetTask', { id: 'a:b' }), {
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
  });

  it('an answer to a task that waits for nothing is refused (unsupported operation), nothing runs', async () => {
    server = await startA2AServer();
    const alice = await server.client('alice');
    const done = await alice.sendMessage(
      sendRequest(userMessage('hello', { messageId: 'm1', contextId: 's1' })),
    );
    const before = await dumpBackend(server.temp.store);
    await expect(
      alice.sendMessage(
        sendRequest(
          userMessage('approve', { messageId: 'm2', taskId: (done as { id: string }).id }),
        ),
      ),
    ).rejects.toThrow(/not waiting for input/);
    expect(await dumpBackend(server.temp.store)).toEqual(before);
    expect(server.model.callCount).toBe(1);
  });
});
