import { afterEach, describe, expect, it } from 'vitest';
import { Agent, AgentStateError, RunCancelledError, type AnyTool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { blockingLookup } from '../helpers/blocking-lookup.js';
import { rejection } from '../helpers/agent-fixtures.js';
import { lastResult, triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'failures', userId: 'bob' };

describe('sub-agent failures', () => {
  it("turns a failed child into a tool error item the parent's model reads, and goes on", async () => {
    const { store } = await temps.open();
    // billing may take one turn only: it fails with MAX_TURNS_EXCEEDED after its lookup
    const { triage, triageModel } = triageWithBilling({ store, billing: { maxTurns: 1 } });
    const result = await triage.run('where is order 3?', key);
    const seenByParent = triageModel.calls[1]!.items.at(-1);
    expect(seenByParent).toMatchObject({ type: 'tool_result', name: 'ask_billing', isError: true });
    expect(seenByParent?.type === 'tool_result' && seenByParent.output).toMatch(
      /sub-agent "ask_billing" failed: .*limit of 1 turn.*MAX_TURNS_EXCEEDED/,
    );
    expect(result.interrupted).toBe(false);
    expect(result.subRuns).toMatchObject([
      { agentPath: ['triage', 'billing'], status: 'failed', error: { code: 'MAX_TURNS_EXCEEDED' } },
    ]);
  });

  it('fails the parent with the child error when the tool says so (failParent)', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({
      store,
      billing: { maxTurns: 1 },
      tool: { failParent: true },
    });
    const error = await rejection(triage.run('where is order 3?', key));
    expect(error).toBeInstanceOf(AgentStateError);
    expect((error as AgentStateError).code).toBe('MAX_TURNS_EXCEEDED');
    const view = await triage.runtimeFor(store).getSession(key);
    expect(view.lastRun?.status).toBe('failed');
    expect(view.state).toBe('active.idle');
  });

  it("interrupts the whole run when a child's model call fails, and resume retries that call only", async () => {
    const { store } = await temps.open();
    let failures = 1;
    const { billingModel } = triageWithBilling({ store });
    const flaky = new ScriptedModel(
      async (request, index) => {
        if (index === 1 && failures-- > 0) return { error: 'rate limited (429)' };
        return billingModel
          .generate(request)
          .then((r) =>
            r.toolCalls.length
              ? { toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) }
              : { text: r.text ?? '' },
          );
      },
      { recordCalls: true },
    );
    const { triage: parent } = triageWithBilling({ store, billing: { model: flaky } });
    const paused = await parent.run('where is order 8?', key);
    expect(paused.interrupted).toBe(true);
    expect(paused.interruptionReason).toBe('error');
    expect(paused.error?.code).toBe('MODEL_ERROR');
    expect(flaky.calls).toHaveLength(2);
    const done = await parent.resume(key.sessionId, { userId: key.userId });
    expect(done.output).toBe('triage: billing: order 8 is shipped');
    // the retried call only: the first (journaled) call did not run again
    expect(flaky.calls).toHaveLength(3);
  });

  it("counts children's tokens in the parent's budget", async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store, triage: { userBudget: { maxTokens: 60 } } });
    // parent 15 + billing 2 x 15 + parent 15 = 60 tokens: the budget is spent before the
    // parent's last turn (without the child's 30 it would have 30 left)
    const result = await triage.run('where is order 1?', key);
    expect(result.interrupted).toBe(true);
    expect(result.interruptionReason).toBe('budget');
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(60);
  });

  it('cancels the children with the parent: the child tool in flight sees the abort', async () => {
    const { store } = await temps.open();
    const { lookup, started, aborted } = blockingLookup();
    const { triage } = triageWithBilling({ store, billing: { tools: [lookup] } });
    const controller = new AbortController();
    const run = triage.run('where is order 2?', { ...key, signal: controller.signal });
    await started.promise;
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(RunCancelledError);
    expect(aborted).toEqual([true]);
    const view = await triage.runtimeFor(store).getSession(key);
    expect(view.lastRun?.status).toBe('cancelled');
    expect(view.state).toBe('active.idle');
  });

  it('stops recursion at maxSubAgentDepth with SubAgentDepthError, which the level above reads', async () => {
    const { store } = await temps.open();
    const tools: AnyTool[] = [];
    const model = new ScriptedModel(
      (request) => {
        const result = lastResult(request);
        return result === undefined
          ? { toolCalls: [{ name: 'delegate', arguments: { input: 'go deeper' } }] }
          : { text: `got: ${result}` };
      },
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'echo', model, tools, store, maxSubAgentDepth: 2 });
    tools.push(agent.asTool({ name: 'delegate', description: 'Delegates to itself' }));
    const result = await agent.run('go', key);
    expect(result.output).toMatch(
      /^got: got: got: Error: the sub-agent "delegate" failed: .*nested 3 deep.*SUB_AGENT_DEPTH/,
    );
    expect(result.subRuns.map((r) => [r.agentPath.length, r.status, r.error?.code])).toEqual([
      [2, 'completed', undefined],
      [3, 'completed', undefined],
      [4, 'failed', 'SUB_AGENT_DEPTH'],
    ]);
  });
});
