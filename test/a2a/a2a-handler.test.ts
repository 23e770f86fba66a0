import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { sendRequest, startA2AServer, userMessage, type A2AServer } from '../helpers/a2a-server.js';

let server: A2AServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const textOf = (parts: { content?: { $case: string; value?: unknown } }[] | undefined) =>
  (parts ?? [])
    .flatMap((p) => (p.content?.$case === 'text' ? [String(p.content.value)] : []))
    .join('');

describe('createA2AHandler with the SDK client', () => {
  it('serves the agent card, answers SendMessage with a completed task, and GetTask reads it', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const card = await client.getAgentCard();
    expect(card.name).toBe('assistant');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((s) => s.id)).toEqual(['add', 'pay']);

    const result = await client.sendMessage(
      sendRequest(userMessage('add', { messageId: 'm1', contextId: 'c1' })),
    );
    expect('id' in result).toBe(true);
    const task = result as Exclude<typeof result, { messageId: string }>;
    expect(task.contextId).toBe('c1');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toBe('The sum is 5.');
    expect(task.metadata?.['agentstate']).toEqual({
      usage: { inputTokens: 20, outputTokens: 10, costUsd: 0 },
    });

    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.history.map((m) => textOf(m.parts))).toEqual(['add', 'The sum is 5.']);
  });

  it('answers the v0.3 method names too (no A2A-Version header): message/send, tasks/get', async () => {
    server = await startA2AServer();
    const post = (method: string, params: unknown) =>
      server!.post('alice', { jsonrpc: '2.0', id: 1, method, params }, { 'a2a-version': '' });
    const sent = (await (
      await post('message/send', {
        message: {
          kind: 'message',
          messageId: 'm1',
          contextId: 'legacy',
          role: 'user',
          parts: [{ kind: 'text', text: 'add' }],
        },
      })
    ).json()) as { result: { kind: string; id: string; status: { state: string } } };
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const read = (await (await post('tasks/get', { id: sent.result.id })).json()) as {
      result: { artifacts: { parts: { text?: string }[] }[] };
    };
    expect(read.result.artifacts[0]!.parts[0]!.text).toBe('The sum is 5.');
  });
});
