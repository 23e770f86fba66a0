import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { Agent } from '../../src/index.js';
import { createA2AHandler } from '../../src/a2a.js';
import { sendRequest, startA2AServer, userMessage, type A2AServer } from '../helpers/a2a-server.js';

let server: A2AServer | undefined;
afterEach(async () => {
  server?.gate.resolve();
  await server?.close();
  server = undefined;
});

describe('createA2AHandler: every answer from the store', () => {
  it('a second handler (another Agent object on the same store, no shared memory) gets, lists and cancels a task the first one runs', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const started = (await client.sendMessage(
      sendRequest(userMessage('slow', { messageId: 'm1', contextId: 's1' }), true),
    )) as Task;
    await server.reached.promise;

    // What another process serving the same agent would build: its own agent and handler.
    const other = createA2AHandler({
      agent: new Agent({ ...server.agent.options }),
      userId: (request) => request.headers.get('x-user') ?? undefined,
      card: { url: 'http://127.0.0.1:1/' },
      store: server.temp.store,
    });
    const call = async (method: string, params: unknown) => {
      const response = await other(
        new Request('http://127.0.0.1:1/', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-user': 'alice' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }),
      );
      return ((await response.json()) as { result: Record<string, unknown> }).result;
    };
    expect(await call('GetTask', { id: started.id })).toMatchObject({
      id: started.id,
      contextId: 's1',
      status: { state: 'TASK_STATE_WORKING' },
    });
    expect(await call('ListTasks', { contextId: 's1' })).toMatchObject({
      tasks: [{ id: started.id, status: { state: 'TASK_STATE_WORKING' } }],
    });
    expect(await call('CancelTask', { id: started.id })).toMatchObject({
      status: { state: 'TASK_STATE_CANCELED' },
    });
    expect((await client.getTask({ tenant: '', id: started.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
  });
});
