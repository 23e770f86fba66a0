import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import type { UIMessage } from 'ai';
import { answer, startChatServer, userMessage, type ChatServer } from '../helpers/chat-server.js';
import { GatedModel } from '../helpers/gated-model.js';
import { dumpBackend } from '../helpers/session-fixtures.js';

let chat: ChatServer;
afterEach(async () => {
  await chat.close();
});

const post = (path: string, body: unknown) =>
  chat.as('alice', path, { method: 'POST', body: JSON.stringify(body) });

async function refusal(res: Response) {
  return {
    status: res.status,
    body: (await res.json()) as { error: { code: string; message: string } },
  };
}

describe('one request, one meaning: a call approved and rejected in one request is 400, nothing decided', () => {
  beforeEach(async () => {
    chat = await startChatServer();
    const paused = await post('/api/sessions/paid/messages', { text: 'pay' });
    expect(await paused.text()).toContain('tool-approval-request');
  });

  it('the approvals route', async () => {
    const before = await dumpBackend(chat.temp.store);
    for (const decisions of [
      [
        { callId: 'pay_1', approved: true },
        { callId: 'pay_1', approved: false },
      ],
      [
        { callId: 'pay_1', approved: false },
        { callId: 'pay_1', approved: true },
      ],
      [
        { callId: 'pay_1', approved: false, message: 'no' },
        { callId: 'pay_1', approved: false, message: 'never' },
      ],
    ]) {
      const { status, body } = await refusal(
        await post('/api/sessions/paid/approvals', { decisions }),
      );
      expect({ status, code: body.error.code }).toEqual({
        status: 400,
        code: 'CONFLICTING_DECISIONS',
      });
      expect(body.error.message).toContain('pay_1');
    }
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it("useChat's message answering the same call twice, differently", async () => {
    const before = await dumpBackend(chat.temp.store);
    const part = (approved: boolean) => ({
      type: 'tool-pay',
      toolCallId: 'pay_1',
      state: 'approval-responded',
      input: { amount: 5 },
      approval: { id: 'pay_1', approved },
    });
    const assistant = { id: 'a1', role: 'assistant', parts: [part(true), part(false)] };
    const { status, body } = await refusal(
      await post('/api/chat', { id: 'paid', messages: [userMessage('u1', 'pay'), assistant] }),
    );
    expect({ status, code: body.error.code }).toEqual({
      status: 400,
      code: 'CONFLICTING_DECISIONS',
    });
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
  });

  it('AG-UI resume entries resolving and cancelling the same interrupt', async () => {
    const before = await dumpBackend(chat.temp.store);
    for (const resume of [
      [
        { interruptId: 'pay_1', status: 'resolved', payload: { approved: true } },
        { interruptId: 'pay_1', status: 'cancelled' },
      ],
      [
        { interruptId: 'pay_1', status: 'resolved', payload: { approved: true } },
        { interruptId: 'pay_1', status: 'resolved', payload: { approved: false } },
      ],
    ]) {
      const res = await chat.as('alice', '/api/agui', {
        method: 'POST',
        headers: { accept: 'text/event-stream' },
        body: JSON.stringify({ threadId: 'paid', runId: 'r2', messages: [], resume }),
      });
      const { status, body } = await refusal(res);
      expect({ status, code: body.error.code }).toEqual({
        status: 400,
        code: 'CONFLICTING_DECISIONS',
      });
    }
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
    expect(chat.model.callCount).toBe(1);
  });

  it('the same decision twice counts once', async () => {
    const res = await post('/api/sessions/paid/approvals', {
      decisions: [
        { callId: 'pay_1', approved: true },
        { callId: 'pay_1', approved: true },
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('paid 5');
  });
});

describe('HTTP answers speak HTTP', () => {
  it('approving a call twice (the run has gone on) is 409 ALREADY_DECIDED, over the approvals route and AG-UI', async () => {
    chat = await startChatServer();
    await (await post('/api/sessions/paid/messages', { text: 'pay' })).text();
    const first = await post('/api/sessions/paid/approvals', { callId: 'pay_1', approved: true });
    expect(await first.text()).toContain('paid 5');
    const before = await dumpBackend(chat.temp.store);
    const again = await refusal(
      await post('/api/sessions/paid/approvals', { callId: 'pay_1', approved: true }),
    );
    expect({ status: again.status, code: again.body.error.code }).toEqual({
      status: 409,
      code: 'ALREADY_DECIDED',
    });
    expect(again.body.error.message).toContain('pay_1');
    const agui = new HttpAgent({
      url: `${chat.origin}/api/agui`,
      headers: { 'x-user': 'alice' },
      threadId: 'paid',
    });
    const resumed = await chat.as('alice', '/api/agui', {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: agui.threadId,
        runId: 'r3',
        messages: [],
        resume: [{ interruptId: 'pay_1', status: 'cancelled' }],
      }),
    });
    expect((await refusal(resumed)).body.error.code).toBe('ALREADY_DECIDED');
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
  });

  it('approving twice with the AI SDK client: the second is ALREADY_DECIDED', async () => {
    chat = await startChatServer();
    const transport = chat.transport('alice');
    const asked = await answer(transport, 'paid', [userMessage('u1', 'pay')]);
    // What useChat's addToolApprovalResponse does to the part, then sends.
    const approved: UIMessage = {
      ...asked.message,
      parts: asked.message.parts.map((p) =>
        p.type === 'tool-pay'
          ? ({
              ...p,
              state: 'approval-responded',
              approval: { id: 'pay_1', approved: true },
            } as typeof p)
          : p,
      ),
    };
    // (the reader updates the message it continues: each send gets its own copy)
    await answer(transport, 'paid', [userMessage('u1', 'pay'), structuredClone(approved)]);
    const twice = [userMessage('u1', 'pay'), structuredClone(approved)];
    await expect(answer(transport, 'paid', twice)).rejects.toThrow(/ALREADY_DECIDED/);
  });

  it('a message while a run is answering says what a client can do (no AbortSignal)', async () => {
    const gated = new GatedModel();
    chat = await startChatServer(gated);
    const running = post('/api/sessions/busy/messages', { text: 'add' });
    await gated.reached.promise;
    const { status, body } = await refusal(
      await post('/api/sessions/busy/messages', { text: 'again' }),
    );
    gated.open();
    await (await running).text();
    expect({ status, code: body.error.code }).toEqual({ status: 409, code: 'RUN_IN_PROGRESS' });
    expect(body.error.message).not.toMatch(/AbortSignal|signal/i);
    expect(body.error.message).toContain('cancel');
  });

  it.each([
    ['/api/chat', { id: 's1' }, 'expected a messages array'],
    ['/api/chat', { id: 's1', messages: 'hi' }, 'expected a messages array'],
    ['/api/sessions/s1/messages', {}, 'expected a messages array'],
    ['/api/sessions/s1/approvals', {}, 'expected { callId, approved'],
    ['/api/agui', { threadId: 's1' }, 'Invalid body at runId: expected string'],
  ])('a wrong body on %s says what was expected', async (path, body, says) => {
    chat = await startChatServer();
    const { status, body: error } = await refusal(await post(path, body));
    expect({ status, code: error.error.code }).toEqual({ status: 400, code: 'INVALID_BODY' });
    expect(error.error.message).toContain(says);
    expect(error.error.message).not.toContain('Invalid input');
  });
});
