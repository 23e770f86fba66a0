import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, RunState, tool, type AnyTool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'desk', userId: 'dana' };

/** A front desk that hands billing questions to a billing agent, which can hand them back. */
function desk(store: LevelSessionStore) {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => `order ${order} refunded`,
  });
  const billingModel = new ScriptedModel(
    (request) => {
      const result = lastResult(request);
      if (result?.startsWith('Transferred')) {
        return { toolCalls: [{ name: 'refund', arguments: { order: '12' } }] };
      }
      return { text: `billing here: ${result ?? ''}` };
    },
    { recordCalls: true },
  );
  const frontTools: AnyTool[] = [];
  const billing = new Agent({
    name: 'billing',
    instructions: 'You are billing.',
    model: billingModel,
    tools: [refund],
  });
  const frontModel = new ScriptedModel(
    () => ({
      toolCalls: [{ name: 'transfer_to_billing', arguments: {} }],
    }),
    { recordCalls: true },
  );
  const front = new Agent({
    name: 'front',
    instructions: 'You are the front desk.',
    model: frontModel,
    tools: frontTools,
    handoffs: [billing],
    store,
  });
  return { front, frontModel, billingModel };
}

describe('handoffs', () => {
  it('gives the rest of the run to the agent handed off to, across an approval and a reopen, and says who answered', async () => {
    const temp = await temps.open();
    const first = desk(temp.store);
    const paused = await first.front.run('I want a refund for order 12', key);
    // front was told about billing through a transfer tool, and called it
    expect(first.frontModel.calls[0]!.tools.map((t) => t.name)).toEqual(['transfer_to_billing']);
    expect(first.frontModel.calls).toHaveLength(1);
    // billing answered the next turn, with its own instructions and tools, on the same history
    expect(first.billingModel.calls[0]!.instructions).toBe('You are billing.');
    expect(first.billingModel.calls[0]!.tools.map((t) => t.name)).toEqual(['refund']);
    expect(first.billingModel.calls[0]!.items.map((i) => i.type)).toEqual([
      'message',
      'tool_call',
      'tool_result',
    ]);
    expect(paused.interruptions).toMatchObject([{ toolName: 'refund', agent: 'billing' }]);
    expect(paused.lastAgent).toBe('billing');
    const state = JSON.stringify(paused.state);
    await temp.store.close();

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = desk(store);
    const done = await second.front.resume(
      RunState.fromJSON(state).approve(paused.interruptions[0]!.callId),
      { store },
    );
    expect(done.output).toBe('billing here: order 12 refunded');
    expect(done.lastAgent).toBe('billing');
    expect(second.frontModel.calls).toHaveLength(0);
    const history = await store.readHistory(key);
    expect(history.at(-1)).toMatchObject({ type: 'message', role: 'assistant', agent: 'billing' });
  });

  it('keeps the run with its own agent when no handoff happens', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'solo',
      model: new ScriptedModel([{ text: 'hi' }], { recordCalls: true }),
      store,
    });
    const result = await agent.run('hello', key);
    expect(result.lastAgent).toBe('solo');
  });
});
