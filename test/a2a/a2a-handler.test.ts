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
});
