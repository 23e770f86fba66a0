import { afterEach, describe, expect, it } from 'vitest';
import { Agent, changeBudget, sendMessage, withPrices } from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { alice, bob, callTool, noteTool } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A model that calls `note` `toolTurns` times per run, then answers; usage 10 in + 5 out per call. */
/** Its answers are priced by the agent's table (`price: null`: no price of its own). */
function notingModel(toolTurns: number): ScriptedModel {
  return new ScriptedModel(
    (request): ScriptedResponse => {
      const runStart = request.items
        .map((i) => i.type === 'message' && i.role === 'user')
        .lastIndexOf(true);
      const calls = request.items.slice(runStart).filter((i) => i.type === 'tool_call').length;
      return calls < toolTurns ? callTool('note') : { text: `finished after ${calls} notes` };
    },
    { price: null },
  );
}

describe('session budget', () => {
  it('maxTurns interrupts the run with reason budget; changeBudget then resume completes it', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'worker', model: notingModel(3), tools: [noteTool] });
    const runtime = agent.runtimeFor(store);
    const key = alice('job');
    await agent.run('warm up', { ...key, store }); // 4 turns, no budget yet
    const used = (await runtime.getSessionInfo(key)).usage.turns;
    expect(used).toBe(4);

    await runtime.execute(key, changeBudget({ maxTurns: used + 2 }));
    const stopped = await agent.run('take notes', { ...key, store });
    expect(stopped).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 2 });
    expect(stopped.output).toBeUndefined();

    const view = await runtime.getSession(key);
    expect(view.state).toBe('active.running');
    expect(view.run?.state).toBe('interrupted');
    expect(view.run?.context.interruption).toBe('budget');

    // resuming without a bigger budget stops again at once
    const still = await agent.resume('job', { userId: 'alice', store });
    expect(still).toMatchObject({ interrupted: true, interruptionReason: 'budget' });

    await runtime.execute(key, changeBudget({ maxTurns: 10 + used }));
    const done = await agent.resume('job', { userId: 'alice', store });
    expect(done).toMatchObject({ interrupted: false, output: 'finished after 3 notes', turns: 4 });
    const after = await runtime.getSession(key);
    expect(after).toMatchObject({ state: 'active.idle', run: undefined });
    expect(after.usage.turns).toBe(8);
  });

  it('maxTokens and maxCostUsd interrupt as well', async () => {
    const { store } = await temps.open();
    const prices = withPrices({ scripted: { inputPerMillion: 1_000_000, outputPerMillion: 0 } });
    const agent = new Agent({ name: 'worker', model: notingModel(5), tools: [noteTool], prices });
    const runtime = agent.runtimeFor(store);

    await agent.run('warm up', { ...alice('tokens'), store });
    await runtime.execute(alice('tokens'), changeBudget({ maxTokens: 1 }));
    const byTokens = await agent.run('again', { ...alice('tokens'), store });
    expect(byTokens).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 0 });

    await runtime.execute(alice('cost'), sendMessage('warm up'));
    const spent = (await runtime.getSessionInfo(alice('cost'))).usage.costUsd;
    expect(spent).toBeGreaterThan(0); // 10 input tokens per call at $1 each
    await runtime.execute(alice('cost'), changeBudget({ maxCostUsd: spent + 15 }));
    const byCost = await agent.run('again', { ...alice('cost'), store });
    expect(byCost).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 2 });
    expect((await runtime.getSession(alice('cost'))).run?.state).toBe('interrupted');
  });
});

describe('per-user budget', () => {
  it("a user's totals span sessions; another user is unaffected", async () => {
    const { store } = await temps.open();
    // each model call reports 10 + 5 tokens; alice may spend 40 in all
    const agent = new Agent({
      name: 'worker',
      model: notingModel(1),
      tools: [noteTool],
      store,
      userBudget: { maxTokens: 40 },
    });
    const runtime = agent.runtimeFor(store);

    const first = await agent.run('first session', { sessionId: 'one', userId: 'alice' });
    expect(first).toMatchObject({ interrupted: false, turns: 2 });
    expect(await store.userUsage('alice')).toMatchObject({ inputTokens: 20, outputTokens: 10 });

    const second = await agent.run('second session', { sessionId: 'two', userId: 'alice' });
    expect(second).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 1 });
    expect((await runtime.getSession(alice('two'))).run?.state).toBe('interrupted');

    const other = await agent.run('bob works', { sessionId: 'two', userId: 'bob' });
    expect(other).toMatchObject({ interrupted: false, turns: 2 });
    expect((await runtime.getSession(bob('two'))).state).toBe('active.idle');
    expect(await store.userUsage('bob')).toMatchObject({ inputTokens: 20, outputTokens: 10 });
  });
});
