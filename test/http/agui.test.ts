import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventType, HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { ModelError } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { deferred } from '../helpers/session-fixtures.js';

let chat: ChatServer;
beforeEach(async () => {
  chat = await startChatServer();
});
afterEach(async () => {
  await chat.close();
});

/** AG-UI's own HTTP client for `user` on thread `threadId`, against the handler's AG-UI route. */
const client = (user: string, threadId: string) =>
  new HttpAgent({ url: `${chat.origin}/api/agui`, headers: { 'x-user': user }, threadId });

/**
 * Runs `agent` (after adding a user message `text`, if given) with AG-UI's client; every event
 * it receives is checked against `@ag-ui/core`'s event schema.
 */
async function run(
  agent: HttpAgent,
  text: string | undefined,
  params: Parameters<HttpAgent['runAgent']>[0] = {},
) {
  if (text !== undefined) {
    agent.addMessage({ id: `u-${agent.messages.length}`, role: 'user', content: text });
  }
  const events: BaseEvent[] = [];
  // The client warns of what it does not recognise in an event (and strips it) on the console.
  const warn = vi.spyOn(console, 'warn');
  try {
    const result = await agent.runAgent(params, {
      onEvent: ({ event }) => void events.push(event),
    });
    expect(warn.mock.calls.map(String).filter((c) => c.includes('[ag-ui]'))).toEqual([]);
    // Checked here: the client logs and swallows a subscriber's own errors.
    for (const event of events) expect(EventSchema.safeParse(event).error).toBeUndefined();
    return {
      ...result,
      result: result.result as unknown,
      events,
      types: events.map((e) => String(e.type)),
    };
  } finally {
    warn.mockRestore();
  }
}

/** The AG-UI events of a raw response: SSE `data:` frames, each checked by AG-UI's schema. */
async function frames(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const text = await res.text();
  const parts = text.split('\n\n').filter(Boolean);
  for (const f of parts) expect(f.startsWith('data: ')).toBe(true);
  return parts.map((f) => EventSchema.parse(JSON.parse(f.slice('data: '.length))));
}

/** The session's current or last run id, as the store has it. */
async function storedRunId(sessionId: string, userId: string) {
  const view = await chat.agent.runtimeFor(chat.temp.store).getSession({ sessionId, userId });
  return view.runStatus?.runId;
}

/** A message as the client keeps it, without the ids it was given. */
const shape = (m: Message) => {
  const { id: _id, ...rest } = m;
  return rest;
};

describe('the AG-UI route with AG-UI’s HttpAgent', () => {
  it('streams a text answer as a text message in a step, between RUN_STARTED and RUN_FINISHED', async () => {
    const agent = client('alice', 't1');
    const { newMessages, events, types, result } = await run(agent, 'hello there', {
      runId: 'client-run-1',
    });
    expect(newMessages.map(shape)).toEqual([
      { role: 'assistant', content: 'You said: hello there' },
    ]);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.slice(1, 3)).toEqual(['STEP_STARTED', 'TEXT_MESSAGE_START']);
    // Streamed: the text came in several deltas.
    expect(types.filter((t) => t === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(types.slice(-3)).toEqual(['TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED']);
    // The thread is the session, the run id agentstate's own run id.
    const runId = await storedRunId('t1', 'alice');
    expect(events[0]).toMatchObject({ threadId: 't1', runId });
    expect(events.at(-1)).toMatchObject({
      threadId: 't1',
      runId,
      outcome: { type: 'success' },
      result: 'You said: hello there',
    });
    expect(result).toBe('You said: hello there');
    const stored = await chat.temp.store.readHistory({ sessionId: 't1', userId: 'alice' });
    expect(stored.map((i) => i.type)).toEqual(['message', 'message']);
  });

  it('sends SSE data frames, each one an AG-UI event, and the second run of a thread new message ids', async () => {
    const post = (runId: string, content: string, id = 'u1') =>
      chat.as('alice', '/api/agui', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          threadId: 't2',
          runId,
          messages: [{ id, role: 'user', content }],
          tools: [],
          context: [],
        }),
      });
    const first = await frames(await post('r1', 'hi'));
    const second = await frames(await post('r2', 'again', 'u2')); // a new message, a new id
    const ids = (events: typeof first) =>
      events.flatMap((e) => (e.type === EventType.TEXT_MESSAGE_START ? [e.messageId] : []));
    expect(ids(first)).toEqual(['r1-1']);
    expect(ids(second)).toEqual(['r2-1']);
  });

  it('shows a tool call with its arguments and its result, then the answer', async () => {
    const agent = client('alice', 't3');
    const { newMessages, types } = await run(agent, 'add');
    expect(newMessages.map(shape)).toEqual([
      {
        role: 'assistant',
        toolCalls: [
          { id: 'add_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        ],
      },
      { role: 'tool', toolCallId: 'add_1', content: '5' },
      { role: 'assistant', content: 'The sum is 5.' },
    ]);
    expect(types).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      ...types.filter((t) => t === 'TEXT_MESSAGE_CONTENT'),
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
  });

  it('ends a run waiting for an approval with an interrupt, and a resume approving it goes on', async () => {
    const agent = client('alice', 't4');
    const first = await run(agent, 'pay');
    expect(first.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'pay_1',
            reason: 'tool_call',
            toolCallId: 'pay_1',
            message: 'Approve the call of pay?',
            responseSchema: { type: 'object', required: ['approved'] },
          },
        ],
      },
    });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['pay_1']);
    expect(first.newMessages.map(shape)).toEqual([
      {
        role: 'assistant',
        toolCalls: [
          { id: 'pay_1', type: 'function', function: { name: 'pay', arguments: '{"amount":5}' } },
        ],
      },
    ]);
    expect(chat.model.callCount).toBe(1);
    // A new run on the thread without answering the interrupt: the client refuses it itself.
    await expect(run(agent, undefined)).rejects.toThrow(/pending interrupt/);

    const second = await run(agent, undefined, {
      resume: [{ interruptId: 'pay_1', status: 'resolved', payload: { approved: true } }],
    });
    // The call is the first run's: the resumed run answers it, without starting it again.
    expect(second.types).not.toContain('TOOL_CALL_START');
    expect(second.newMessages.map(shape)).toEqual([
      { role: 'tool', toolCallId: 'pay_1', content: 'paid 5' },
      { role: 'assistant', content: 'Pay said: paid 5' },
    ]);
    expect(second.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(agent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // The same run of agentstate, paused then continued.
    expect(second.events[0]).toMatchObject({ runId: first.events[0]!['runId' as never] });
    expect(chat.model.callCount).toBe(2);
  });

  it('a resume rejecting the call gives the model the reason, the result marked denied', async () => {
    const agent = client('alice', 't5');
    await run(agent, 'pay');
    const second = await run(agent, undefined, {
      resume: [
        {
          interruptId: 'pay_1',
          status: 'resolved',
          payload: { approved: false, message: 'not today' },
        },
      ],
    });
    expect(second.events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'pay_1',
      content: 'not today',
      metadata: { isError: true, denied: true },
    });
    expect(second.newMessages.at(-1)).toMatchObject({ content: 'Pay said: not today' });
    const stored = await chat.temp.store.readHistory({ sessionId: 't5', userId: 'alice' });
    expect(stored.at(-2)).toMatchObject({
      type: 'tool_result',
      output: 'not today',
      isError: true,
    });
  });

  it('a cancelled resume entry rejects the call', async () => {
    const agent = client('alice', 't6');
    await run(agent, 'pay');
    const second = await run(agent, undefined, {
      resume: [{ interruptId: 'pay_1', status: 'cancelled' }],
    });
    expect(second.events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'pay_1',
      metadata: { denied: true },
    });
    expect(second.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
    expect(chat.model.callCount).toBe(2);
  });

  it('a run cancelled through the cancel route ends RUN_FINISHED with the cancelled outcome', async () => {
    await chat.close();
    const gate = deferred();
    const entered = deferred();
    chat = await startChatServer(
      new ScriptedModel(async () => {
        entered.resolve();
        await gate.promise;
        return { text: 'too late' };
      }),
    );
    const running = run(client('alice', 't7'), 'slow');
    await entered.promise;
    const cancelled = await chat.as('alice', '/api/sessions/t7/cancel', { method: 'POST' });
    expect(await cancelled.json()).toEqual({ cancelled: true });
    gate.resolve();
    const { events, types, newMessages } = await running;
    expect(types).toEqual(['RUN_STARTED', 'STEP_STARTED', 'STEP_FINISHED', 'RUN_FINISHED']);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'cancelled' } });
    expect(newMessages).toEqual([]);
  });

  it('a failed model call ends the stream with RUN_ERROR carrying the typed error', async () => {
    await chat.close();
    chat = await startChatServer(
      new ScriptedModel([{ error: new ModelError('upstream 500', { status: 500 }) }]),
    );
    const { events, types } = await run(client('alice', 't8'), 'hi');
    expect(types[0]).toBe('RUN_STARTED');
    expect(events.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'MODEL_ERROR',
      message: 'upstream 500',
    });
  });

  it('a resume answering one of two interrupts decides that call; the run ends interrupted by the other', async () => {
    await chat.close();
    chat = await startChatServer(
      new ScriptedModel((request) =>
        request.items.at(-1)?.type === 'tool_result'
          ? { text: 'both paid' }
          : {
              toolCalls: [
                { name: 'pay', arguments: { amount: 1 }, callId: 'pay_1' },
                { name: 'pay', arguments: { amount: 2 }, callId: 'pay_2' },
              ],
            },
      ),
    );
    const agent = client('alice', 't9');
    await run(agent, 'pay twice');
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['pay_1', 'pay_2']);
    // AG-UI's client sends only resumes that answer every interrupt: this one is posted raw.
    const resume = (interruptId: string, runId: string) =>
      chat.as('alice', '/api/agui', {
        method: 'POST',
        body: JSON.stringify({
          threadId: 't9',
          runId,
          messages: [],
          resume: [{ interruptId, status: 'resolved', payload: { approved: true } }],
        }),
      });
    const half = await frames(await resume('pay_1', 'r2'));
    expect(half.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'interrupt', interrupts: [{ id: 'pay_2', toolCallId: 'pay_2' }] },
    });
    const rest = await frames(await resume('pay_2', 'r3'));
    expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const results = [...half, ...rest].flatMap((e) =>
      e.type === EventType.TOOL_CALL_RESULT ? [[e.toolCallId, e.content]] : [],
    );
    expect(results).toEqual([
      ['pay_1', 'paid 1'],
      ['pay_2', 'paid 2'],
    ]);
    expect(rest.at(-1)).toMatchObject({ result: 'both paid' });
  });
});
