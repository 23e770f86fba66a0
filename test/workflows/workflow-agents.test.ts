import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { Agent, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { workflows } from '../../src/workflows/workflows.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';

/** A refund drafter: it refunds the order (a call a human approves), then confirms. */
function drafter(refunds: string[]) {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => {
      refunds.push(order);
      return `refunded ${order}`;
    },
  });
  const model = new ScriptedModel((request) => {
    const result = lastResult(request);
    return result === undefined
      ? {
          toolCalls: [{ name: 'refund', arguments: { order: 'o-1' } }],
          usage: { inputTokens: 10, outputTokens: 5 },
        }
      : { text: `Done: ${result}`, usage: { inputTokens: 20, outputTokens: 7 } };
  });
  return new Agent({ name: 'drafter', model, tools: [refund] });
}

const refundFlow = setup({
  types: { context: {} as { answer: unknown } },
  actors: { drafter: drafter([]).asActor() },
}).createMachine({
  id: 'refund-flow',
  initial: 'drafting',
  context: { answer: undefined },
  states: {
    drafting: {
      invoke: {
        src: 'drafter',
        input: { input: 'Please refund order o-1' },
        onDone: { target: 'done', actions: assign({ answer: ({ event }) => event.output.output }) },
      },
    },
    done: { type: 'final' },
  },
});

describe('an agent inside a workflow', () => {
  it('runs a linked session whose approval surfaces on the instance, approved by workflow id, across a restart', async () => {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    const refunds: string[] = [];
    const host = () =>
      workflows(refundFlow, { store, clock, agents: { drafter: drafter(refunds) } });
    const first = host();
    const started = await first.start('r1', { userId: 'erin' });
    expect(started.value).toBe('drafting');
    expect(started.awaitingApproval).toBe(true);
    const [waiting] = await first.approvals('r1', { userId: 'erin' });
    expect(waiting).toMatchObject({
      actorId: '0.refund-flow.drafting',
      sessionId: 'workflow:r1/0.refund-flow.drafting',
      toolName: 'refund',
    });
    const listed = await first.list({ userId: 'erin' });
    expect(listed.workflows[0]).toMatchObject({ id: 'r1', awaitingApproval: true });
    await first.close();
    expect(refunds).toEqual([]);

    const second = host();
    const done = await second.approve('r1', waiting!.callId, { userId: 'erin' });
    expect(done.status).toBe('completed');
    expect(done.context).toEqual({ answer: 'Done: refunded o-1' });
    expect(refunds).toEqual(['o-1']);
    expect(done.usage).toMatchObject({ inputTokens: 30, outputTokens: 12 });
    expect(done.links).toEqual([
      {
        actorId: '0.refund-flow.drafting',
        kind: 'agent',
        name: 'drafter',
        id: 'workflow:r1/0.refund-flow.drafting',
      },
    ]);
    // The linked session is a session of the same user, with the run's journal.
    const session = await store.load({
      sessionId: 'workflow:r1/0.refund-flow.drafting',
      userId: 'erin',
    });
    expect(session.workflow).toBeUndefined();
    const before = await store.load({ sessionId: 'workflow:r1', userId: 'erin' });
    await expect(second.approve('r1', 'no-such-call', { userId: 'erin' })).rejects.toMatchObject({
      code: 'UNKNOWN_CALL',
    });
    const after = await store.load({ sessionId: 'workflow:r1', userId: 'erin' });
    expect(after.version).toBe(before.version);
  });
});
