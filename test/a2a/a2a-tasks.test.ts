import { afterEach, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { sendRequest, startA2AServer, userMessage, type A2AServer } from '../helpers/a2a-server.js';

let server: A2AServer | undefined;
afterEach(async () => {
  server?.gate.resolve();
  await server?.close();
  server = undefined;
});

type Parts = { content?: { $case: string; value?: unknown } }[] | undefined;
const textOf = (parts: Parts) =>
  (parts ?? [])
    .flatMap((p) => (p.content?.$case === 'text' ? [String(p.content.value)] : []))
    .join('');
const dataOf = (parts: Parts) =>
  (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));

const asTask = (result: unknown) => {
  expect(result).toHaveProperty('id');
  return result as Task;
};

/** What a stream's events say, in order: `task:<state>`, `status:<state>[:text]`, `artifact:<text>`. */
function describeEvent(event: StreamResponse): string {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return `task:${TaskState[payload.value.status!.state]}`;
    case 'statusUpdate': {
      const text = textOf(payload.value.status?.message?.parts);
      const about = (payload.value.metadata?.['agentstate'] as { event?: { type: string } })?.event;
      return `status:${TaskState[payload.value.status!.state]}${text ? `:${text}` : ''}${about ? `:${about.type}` : ''}`;
    }
    case 'artifactUpdate':
      return `artifact:${textOf(payload.value.artifact?.parts)}`;
    case 'message':
    case undefined:
      return 'other';
  }
}

describe('createA2AHandler: tasks with the SDK client', () => {
  it('streams a message: the task, its tool call and result, its text, the answer artifact, completed with usage', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(
      sendRequest(userMessage('add', { messageId: 'm1', contextId: 's1' })),
    )) {
      events.push(event);
    }
    const described = events.map(describeEvent);
    expect(described[0]).toBe('task:TASK_STATE_WORKING');
    expect(described).toContain('status:TASK_STATE_WORKING:tool_call');
    expect(described).toContain('status:TASK_STATE_WORKING:tool_result');
    expect(
      described
        .filter(
          (d) =>
            d.startsWith('status:TASK_STATE_WORKING:') &&
            !d.endsWith('tool_call') &&
            !d.endsWith('tool_result'),
        )
        .map((d) => d.slice('status:TASK_STATE_WORKING:'.length))
        .join(''),
    ).toBe('The sum is 5.');
    expect(described.slice(-2)).toEqual(['artifact:The sum is 5.', 'status:TASK_STATE_COMPLETED']);
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.metadata?.['agentstate']).toEqual({
      usage: { inputTokens: 20, outputTokens: 10, costUsd: 0 },
    });
  });

  it('a message sent twice (the same messageId) runs once and answers the same task', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const send = () =>
      client.sendMessage(sendRequest(userMessage('add', { messageId: 'm1', contextId: 's1' })));
    const first = asTask(await send());
    const again = asTask(await send());
    expect(again.id).toBe(first.id);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(server.model.callCount).toBe(2);
  });

  it('input-required for an approval, answered by a decision message: the run goes on and completes', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const paused = asTask(
      await client.sendMessage(
        sendRequest(userMessage('pay', { messageId: 'm1', contextId: 's1' })),
      ),
    );
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message?.parts)).toContain('pay');
    const [data] = dataOf(paused.status?.message?.parts);
    const approvals = (data as { agentstate: { approvals: { callId: string }[] } }).agentstate
      .approvals;
    expect(approvals).toEqual([
      {
        callId: approvals[0]!.callId,
        tool: 'pay',
        arguments: { amount: 500 },
        agentPath: ['assistant'],
      },
    ]);
    const read = await client.getTask({ tenant: '', id: paused.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const decision = userMessage('', { messageId: 'm2', contextId: 's1', taskId: paused.id }, [
      {
        content: {
          $case: 'data',
          value: {
            agentstate: { decisions: [{ callId: approvals[0]!.callId, decision: 'approve' }] },
          },
        },
        metadata: undefined,
        filename: '',
        mediaType: 'application/json',
      },
    ]);
    const done = asTask(await client.sendMessage(sendRequest(decision)));
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toBe('Pay said: paid 500');
  });

  it('a text answer "reject <why>" rejects every pending call; the model reads why', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const paused = asTask(
      await client.sendMessage(
        sendRequest(userMessage('pay', { messageId: 'm1', contextId: 's1' })),
      ),
    );
    const done = asTask(
      await client.sendMessage(
        sendRequest(userMessage('reject not today', { messageId: 'm2', taskId: paused.id })),
      ),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toContain('not today');
  });

  it('cancels a working task (CancelTask reads and cancels through the store); a cancelled task cannot be cancelled again', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const started = asTask(
      await client.sendMessage(
        sendRequest(userMessage('slow', { messageId: 'm1', contextId: 's1' }), true),
      ),
    );
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await server.reached.promise;
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: started.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(
      client.cancelTask({ tenant: '', id: started.id, metadata: undefined }),
    ).rejects.toThrow(/has ended/);
  });

  it('resubscribes after a dropped connection: the task as stored, then what follows, nothing lost or twice', async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const drop = new AbortController();
    const seen: string[] = [];
    let taskId = '';
    // "add then slow": the tool call and its result stream, then the model's answer waits.
    for await (const event of client.sendMessageStream(
      sendRequest(userMessage('slow add', { messageId: 'm1', contextId: 's1' })),
      { signal: drop.signal },
    )) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      seen.push(describeEvent(event));
      if (seen.at(-1)!.endsWith('tool_result')) break; // the connection drops here
    }
    drop.abort();
    expect(seen).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING:tool_call',
      'status:TASK_STATE_WORKING:tool_result',
    ]);
    await server.reached.promise;

    const again: StreamResponse[] = [];
    const resubscribed = client.resubscribeTask({ tenant: '', id: taskId });
    const first = await resubscribed.next();
    again.push(first.value as StreamResponse);
    server.gate.resolve();
    for await (const event of resubscribed) again.push(event);
    const described = again.map(describeEvent);
    // The task as it is (working), then only what came after: no tool call or result again,
    // the answer's text once (whole, or as deltas when the reader was there from its start).
    expect(described[0]).toBe('task:TASK_STATE_WORKING');
    expect(described.slice(-2)).toEqual(['artifact:Slow but here.', 'status:TASK_STATE_COMPLETED']);
    const middle = described.slice(1, -2);
    expect(middle.every((d) => d.startsWith('status:TASK_STATE_WORKING:'))).toBe(true);
    expect(middle.map((d) => d.slice('status:TASK_STATE_WORKING:'.length)).join('')).toBe(
      'Slow but here.',
    );
    const ids = again.flatMap((e) =>
      e.payload?.$case === 'statusUpdate' || e.payload?.$case === 'artifactUpdate'
        ? [(e.payload.value.metadata?.['agentstate'] as { eventId: string }).eventId]
        : [],
    );
    expect(new Set(ids).size).toBe(ids.length);
    // A subscription to the settled task: the task alone, completed.
    const settled: string[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) {
      settled.push(describeEvent(event));
    }
    expect(settled).toEqual(['task:TASK_STATE_COMPLETED']);
  });

  it("lists a session's tasks by contextId (a caller finds its task from the session after a crash); another user's lists none", async () => {
    server = await startA2AServer();
    const client = await server.client('alice');
    const one = asTask(
      await client.sendMessage(
        sendRequest(userMessage('hello', { messageId: 'm1', contextId: 's1' })),
      ),
    );
    const two = asTask(
      await client.sendMessage(
        sendRequest(userMessage('add', { messageId: 'm2', contextId: 's1' })),
      ),
    );
    const listed = await client.listTasks({
      tenant: '',
      contextId: 's1',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([one.id, two.id]);
    expect(listed.tasks.map((t) => textOf(t.artifacts[0]?.parts))).toEqual([
      'You said: hello',
      'The sum is 5.',
    ]);
    const bob = await server.client('bob');
    const none = await bob.listTasks({
      tenant: '',
      contextId: 's1',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(none.tasks).toEqual([]);
  });
});
