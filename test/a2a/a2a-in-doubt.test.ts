import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a.js';
import { crashWhilePaying, key, reopenedPayer } from '../helpers/in-doubt-payment.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

type Parts = { text?: string; data?: { agentstate?: { approvals?: unknown[] } } }[];
interface WireTask {
  id: string;
  status: { state: string; message?: { parts: Parts } };
  artifacts?: { parts: Parts }[];
}

describe('createA2AHandler: calls in doubt', () => {
  it('a call cut off by a crash (onInterrupted: ask) is input-required; "approve" runs it again, the run completes', async () => {
    const path = await crashWhilePaying(temps, { onInterrupted: 'ask' });
    const { agent, store, charges } = await reopenedPayer(temps, path, { onInterrupted: 'ask' });
    const paused = await agent.resume(key.sessionId, { userId: key.userId });
    expect(paused.interruptionReason).toBe('in_doubt');
    const handler = createA2AHandler({
      agent,
      userId: () => key.userId,
      card: { url: 'http://127.0.0.1:1/' },
      store,
    });
    const call = async (method: string, params: unknown) => {
      const response = await handler(
        new Request('http://127.0.0.1:1/', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }),
      );
      return ((await response.json()) as { result: { task?: WireTask } & WireTask }).result;
    };
    const taskId = `${key.sessionId}:${paused.id}`;
    const waiting = await call('GetTask', { id: taskId });
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const data = waiting.status.message!.parts.find((p) => p.data)!.data!;
    expect(data.agentstate!.approvals).toEqual([
      { callId: 'c1', tool: 'pay', arguments: { amount: 5 }, agentPath: ['payer'] },
    ]);

    const answered = await call('SendMessage', {
      message: { messageId: 'a1', taskId, role: 'ROLE_USER', parts: [{ text: 'approve' }] },
    });
    expect(answered.task!.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.task!.artifacts![0]!.parts[0]!.text).toBe('ok: charged c1');
    expect(charges).toEqual(['c1']);
  });
});
