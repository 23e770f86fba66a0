import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, getRunContext, tool, type RunContext } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { collect } from '../helpers/agent-fixtures.js';
import { microtasks } from '../helpers/async.js';
import { firstUserText, lastResult, triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('sub-agents side by side', () => {
  it('runs two sub-agent calls of one turn concurrently, each in its own context: 50 interleaved pairs, no leak', async () => {
    const { store } = await temps.open();
    const seen: { order: string; context: RunContext }[] = [];
    let inFlight = 0;
    let overlapped = 0;
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an order up',
      parameters: z.object({ order: z.string() }),
      execute: async ({ order }) => {
        inFlight++;
        if (inFlight > 1) overlapped++;
        // yield a different number of times per side, so the two children interleave
        await microtasks(order.startsWith('A') ? 3 : 7);
        seen.push({ order, context: getRunContext() });
        inFlight--;
        return `order ${order} is shipped`;
      },
    });
    const worker = new Agent({
      name: 'worker',
      model: new ScriptedModel((request) => {
        const result = lastResult(request);
        const order = /order (\S+)/.exec(firstUserText(request))?.[1] ?? '?';
        return result === undefined
          ? { toolCalls: [{ name: 'lookup', arguments: { order } }] }
          : { text: result };
      }),
      tools: [lookup],
    });
    const parent = new Agent({
      name: 'parent',
      store,
      model: new ScriptedModel((request) => {
        const last = request.items[request.items.length - 1];
        if (last?.type === 'tool_result') return { text: 'both done' };
        const text =
          last?.type === 'message' && typeof last.content === 'string' ? last.content : '';
        const i = /pair (\d+)/.exec(text)?.[1] ?? '?';
        return {
          toolCalls: [
            { name: 'ask', arguments: { input: `order A${i}` } },
            { name: 'ask', arguments: { input: `order B${i}` } },
          ],
        };
      }),
      tools: [
        worker.asTool({
          name: 'ask',
          description: 'Asks the worker',
          metadata: (args: { input: string }) => ({ task: args.input }),
        }),
      ],
    });
    for (let i = 0; i < 50; i++) {
      const result = await parent.run(`pair ${i}`, { sessionId: 'pairs', metadata: { pair: i } });
      const runs = new Map(result.subRuns.map((r) => [r.output, r.runId]));
      for (const { order, context } of seen.splice(0)) {
        // each tool saw its own child's context: the child that was given this order
        expect(context.metadata).toEqual({ pair: i, task: `order ${order}` });
        expect(context.runId).toBe(runs.get(`order ${order} is shipped`));
        expect(context.runId).not.toBe(result.id);
      }
      expect(result.subRuns).toHaveLength(2);
    }
    expect(overlapped).toBeGreaterThan(0);
  });

  it("carries the children's events in the parent's stream, tagged with their agent path", async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    const events = await collect(
      triage.stream('where is order 4?', { sessionId: 'stream', userId: 'carol' }),
    );
    const child = events.filter((e) => 'agentPath' in e && e.agentPath !== undefined);
    expect(new Set(child.map((e) => e.type))).toEqual(
      new Set(['state_entered', 'text_delta', 'tool_call_started', 'tool_call_finished']),
    );
    for (const e of child) expect('agentPath' in e && e.agentPath).toEqual(['triage', 'billing']);
    const childTool = child.find((e) => e.type === 'tool_call_started');
    expect(childTool).toMatchObject({ name: 'lookup' });
    // the parent's own events carry no path
    const parentTools = events.filter(
      (e) => e.type === 'tool_call_started' && !('agentPath' in e && e.agentPath),
    );
    expect(parentTools.map((e) => e.type === 'tool_call_started' && e.name)).toEqual(['audit']);
    expect(events.at(-1)?.type).toBe('run_finished');
  });
});
