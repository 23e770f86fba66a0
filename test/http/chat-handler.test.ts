import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbstractChat,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ChatState,
  type UIMessage,
} from 'ai';
import { ScriptedModel } from '../../src/testing.js';
import { answer, startChatServer, userMessage, type ChatServer } from '../helpers/chat-server.js';
import { deferred } from '../helpers/session-fixtures.js';

let chat: ChatServer;
beforeEach(async () => {
  chat = await startChatServer();
});
afterEach(async () => {
  await chat.close();
});

/** The parts of a message without the step markers. */
const parts = (message: UIMessage) => message.parts.filter((p) => p.type !== 'step-start');

/** The AI SDK's chat as `useChat` runs it, over a plain state (no framework). */
class TestChat extends AbstractChat<UIMessage> {}

/** The chunks of an SSE body (without `[DONE]`). */
const chunksOf = (text: string) =>
  text
    .split('\n\n')
    .filter((f) => f && f !== 'data: [DONE]')
    .map((f) => JSON.parse(f.slice('data: '.length)) as { type: string; [k: string]: unknown });

describe('createChatHandler with the AI SDK client', () => {
  it('streams a text answer that DefaultChatTransport and readUIMessageStream read', async () => {
    const { message, snapshots } = await answer(chat.transport('alice'), 'c1', [
      userMessage('u1', 'hello there'),
    ]);
    expect(message.role).toBe('assistant');
    expect(parts(message)).toEqual([
      expect.objectContaining({ type: 'text', text: 'You said: hello there', state: 'done' }),
    ]);
    // Streamed: the reader saw the text grow over several chunks.
    expect(snapshots).toBeGreaterThan(2);
    const stored = await chat.temp.store.readHistory({ sessionId: 'c1', userId: 'alice' });
    expect(stored.map((i) => i.type)).toEqual(['message', 'message']);
  });

  it('sends the protocol headers and SSE frames ending in [DONE]', async () => {
    const res = await chat.as('alice', '/api/sessions/c2/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'add' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(chunksOf(text).map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
  });

  it('shows a tool call with its input and output as a tool part', async () => {
    const { message } = await answer(chat.transport('alice'), 'c3', [userMessage('u1', 'add')]);
    expect(parts(message)).toEqual([
      expect.objectContaining({
        type: 'tool-add',
        toolCallId: 'add_1',
        state: 'output-available',
        input: { a: 2, b: 3 },
        output: '5',
      }),
      expect.objectContaining({ type: 'text', text: 'The sum is 5.' }),
    ]);
  });

  it('pauses for an approval as a tool part and continues after useChat answers it', async () => {
    const transport = chat.transport('alice');
    const first = await answer(transport, 'c4', [userMessage('u1', 'pay')]);
    const [part] = parts(first.message);
    expect(part).toEqual(
      expect.objectContaining({
        type: 'tool-pay',
        toolCallId: 'pay_1',
        state: 'approval-requested',
        input: { amount: 5 },
        approval: { id: 'pay_1' },
      }),
    );
    expect(chat.model.callCount).toBe(1);
    // What useChat's addToolApprovalResponse does to the part, then sends.
    const responded: UIMessage = {
      ...first.message,
      parts: first.message.parts.map((p) =>
        p.type === 'tool-pay'
          ? ({
              ...p,
              state: 'approval-responded',
              approval: { id: 'pay_1', approved: true },
            } as typeof p)
          : p,
      ),
    };
    const second = await answer(transport, 'c4', [userMessage('u1', 'pay'), responded]);
    expect(second.message.id).toBe(first.message.id);
    expect(parts(second.message)).toEqual([
      expect.objectContaining({ type: 'tool-pay', state: 'output-available', output: 'paid 5' }),
      expect.objectContaining({ type: 'text', text: 'Pay said: paid 5' }),
    ]);
    expect(chat.model.callCount).toBe(2);
  });

  it('a rejection through the approvals route ends the part denied and the model reads it', async () => {
    const transport = chat.transport('alice');
    const first = await answer(transport, 'c5', [userMessage('u1', 'pay')]);
    const res = await chat.as('alice', '/api/sessions/c5/approvals', {
      method: 'POST',
      body: JSON.stringify({ callId: 'pay_1', approved: false, message: 'not today' }),
    });
    expect(res.status).toBe(200);
    const chunks = chunksOf(await res.text());
    expect(chunks).toContainEqual({ type: 'tool-output-denied', toolCallId: 'pay_1' });
    const deltas = chunks.flatMap((c) => (c.type === 'text-delta' ? [c['delta']] : []));
    expect(deltas.join('')).toBe('Pay said: not today');
    expect(first.message.parts.some((p) => p.type === 'tool-pay')).toBe(true);
    const stored = await chat.temp.store.readHistory({ sessionId: 'c5', userId: 'alice' });
    expect(stored.at(-2)).toMatchObject({
      type: 'tool_result',
      output: 'not today',
      isError: true,
    });
  });

  it('GET messages gives the history as UI messages, a waiting call approval-requested', async () => {
    await answer(chat.transport('alice'), 'c6', [userMessage('u1', 'add')]);
    await answer(chat.transport('alice'), 'c6', [userMessage('u2', 'pay')]);
    const res = await chat.as('alice', '/api/sessions/c6/messages');
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: UIMessage[] };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[1]!.parts).toEqual([
      expect.objectContaining({ type: 'tool-add', state: 'output-available', output: '5' }),
      expect.objectContaining({ type: 'text', text: 'The sum is 5.' }),
    ]);
    expect(messages[3]!.parts).toEqual([
      expect.objectContaining({
        type: 'tool-pay',
        state: 'approval-requested',
        approval: { id: 'pay_1' },
      }),
    ]);
  });

  it('cancel ends a paused run and the session takes messages again', async () => {
    await answer(chat.transport('alice'), 'c7', [userMessage('u1', 'pay')]);
    const busy = await chat.as('alice', '/api/sessions/c7/messages', {
      method: 'POST',
      body: JSON.stringify({ text: 'again' }),
    });
    expect(busy.status).toBe(409);
    const refused = (await busy.json()) as { error: { code: string; message: string } };
    expect(refused.error.code).toBe('RUN_PAUSED');
    const res = await chat.as('alice', '/api/sessions/c7/cancel', { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ cancelled: true });
    const { message } = await answer(chat.transport('alice'), 'c7', [userMessage('u2', 'again')]);
    expect(parts(message)).toEqual([expect.objectContaining({ text: 'You said: again' })]);
  });

  it('cancel aborts a run this handler executes; its stream ends with the typed error', async () => {
    await chat.close();
    const gate = deferred();
    const entered = deferred();
    chat = await startChatServer(
      new ScriptedModel(async (_request, _i) => {
        entered.resolve();
        await gate.promise;
        return { text: 'too late' };
      }),
    );
    const res = await chat.as('alice', '/api/sessions/c8/messages', {
      method: 'POST',
      body: JSON.stringify({ text: 'slow' }),
    });
    expect(res.status).toBe(200);
    await entered.promise;
    const cancelled = await chat.as('alice', '/api/sessions/c8/cancel', { method: 'POST' });
    expect(await cancelled.json()).toEqual({ cancelled: true });
    gate.resolve();
    const chunks = chunksOf(await res.text());
    expect(chunks.at(-2)?.type).toBe('error');
    expect(chunks.at(-2)?.['errorText']).toMatch(/^RUN_CANCELLED: /);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'error' });
    const history = await chat.as('alice', '/api/sessions/c8/messages');
    const { messages } = (await history.json()) as { messages: UIMessage[] };
    expect(messages.map((m) => m.role)).toEqual(['user']);
  });

  it("the AI SDK's Chat (what useChat runs) approves with addToolApprovalResponse and goes on by itself", async () => {
    const finished: UIMessage[] = [];
    const state: ChatState<UIMessage> = {
      status: 'ready',
      error: undefined,
      messages: [],
      pushMessage: (m) => void state.messages.push(m),
      popMessage: () => void state.messages.pop(),
      replaceMessage: (i, m) => {
        state.messages[i] = m;
      },
      snapshot: (thing) => structuredClone(thing),
    };
    let done = deferred();
    const client = new TestChat({
      id: 'c9',
      state,
      transport: chat.transport('alice'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onFinish: ({ message }) => {
        finished.push(message);
        done.resolve();
      },
    });
    await client.sendMessage({ text: 'pay' });
    await done.promise;
    const asked = state.messages.at(-1)!.parts.find((p) => p.type === 'tool-pay');
    expect(asked).toMatchObject({ state: 'approval-requested', approval: { id: 'pay_1' } });
    done = deferred();
    await client.addToolApprovalResponse({ id: 'pay_1', approved: true });
    await done.promise;
    expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(parts(state.messages[1]!)).toEqual([
      expect.objectContaining({ type: 'tool-pay', state: 'output-available', output: 'paid 5' }),
      expect.objectContaining({ type: 'text', text: 'Pay said: paid 5' }),
    ]);
    expect(chat.model.callCount).toBe(2);
    expect(client.error).toBeUndefined();
  });
});
