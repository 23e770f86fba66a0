import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import {
  Agent,
  LevelSessionStore,
  RemoteAgentError,
  type AgentOptions,
  type SessionStore,
} from '../../src/index.js';
import { remoteAgent } from '../../src/a2a.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { testTelemetry } from '../helpers/otel.js';
import {
  agentMessage,
  data,
  publishAnswer,
  publishStatus,
  publishTask,
  serveSdkAgent,
  text,
  type SdkServer,
} from '../helpers/a2a-sdk-server.js';

const temps = new TempStores();
const servers: SdkServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await temps.cleanupAll();
});

const textOf = (ctx: RequestContext): string =>
  ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const decisionsOf = (ctx: RequestContext): unknown =>
  ctx.userMessage.parts.find((p) => p.content?.$case === 'data')?.content?.value;

/**
 * A remote bill payer, the way an agentstate server answers by the convention: a payment
 * over $100 asks for approval (`input-required` with its calls), the decision pays or not.
 * Its usage is in the status message's metadata (cumulative over the task).
 */
function billPayer(seen: { inputs: string[]; decisions: unknown[] }, failWith?: TaskState) {
  const executor: AgentExecutor = {
    execute: async (ctx: RequestContext, bus: ExecutionEventBus) => {
      publishTask(ctx, bus);
      publishStatus(ctx, bus, TaskState.TASK_STATE_WORKING);
      if (failWith !== undefined) {
        publishStatus(ctx, bus, failWith, agentMessage(ctx, 'm-fail', [text('card declined')]));
      } else if (!ctx.task) {
        seen.inputs.push(textOf(ctx));
        const approvals = [
          { callId: 'pay_1', tool: 'payBill', arguments: { amount: 250 }, agentPath: ['bills'] },
        ];
        const asks = agentMessage(
          ctx,
          'm-ask',
          [text('payBill({"amount":250}) needs approval'), data({ agentstate: { approvals } })],
          { agentstate: { usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.01 } } },
        );
        publishStatus(ctx, bus, TaskState.TASK_STATE_INPUT_REQUIRED, asks);
      } else {
        seen.decisions.push(decisionsOf(ctx));
        const said = JSON.stringify(decisionsOf(ctx));
        publishAnswer(ctx, bus, said.includes('"approve"') ? 'paid $250' : 'not paid');
        const done = agentMessage(ctx, 'm-done', [text('done')], {
          agentstate: { usage: { inputTokens: 250, outputTokens: 50, costUsd: 0.03 } },
        });
        publishStatus(ctx, bus, TaskState.TASK_STATE_COMPLETED, done);
      }
    },
    cancelTask: async () => {},
  };
  return executor;
}

/** The assistant, whose bills sub-agent is the remote agent at `url`. */
function assistantOn(
  store: SessionStore,
  url: string,
  telemetry?: AgentOptions['telemetry'],
): Agent {
  const bills = remoteAgent({ name: 'bills', url });
  // By the request, not the call count: a resumed agent's model starts counting again.
  const model = new ScriptedModel((request) => {
    const said = lastResult(request);
    return said === undefined
      ? { toolCalls: [{ name: 'bills', arguments: { input: 'pay the $250 power bill' } }] }
      : { text: `bills said: ${said}` };
  });
  return new Agent({
    name: 'assistant',
    model,
    store,
    tools: [bills.asTool({ name: 'bills', description: 'Pays bills' })],
    ...(telemetry ? { telemetry } : {}),
  });
}

async function setup(failWith?: TaskState) {
  const seen = { inputs: [] as string[], decisions: [] as unknown[] };
  const server = await serveSdkAgent(billPayer(seen, failWith), 'bills');
  servers.push(server);
  const temp = await temps.open();
  return { seen, server, assistant: assistantOn(temp.store, server.url), temp };
}

describe('remoteAgent: a remote A2A agent as a sub-agent', () => {
  it("surfaces the remote task's question as an approval at the top of the run; approve -> the remote goes on -> answer", async () => {
    const { seen, server, assistant } = await setup();
    const paused = await assistant.run('pay my power bill', { sessionId: 's1' });
    expect(paused.interrupted).toBe(true);
    expect(paused.interruptionReason).toBe('approval');
    expect(paused.interruptions).toHaveLength(1);
    const [asked] = paused.interruptions;
    expect(asked!.toolName).toBe('remote_input');
    expect(asked!.agentPath).toEqual(['assistant', 'bills']);
    const args = asked!.arguments as { question: string; approvals: unknown[] };
    expect(args.question).toContain('payBill');
    expect(args.approvals).toEqual([
      { callId: 'pay_1', tool: 'payBill', arguments: { amount: 250 }, agentPath: ['bills'] },
    ]);
    expect(seen.inputs).toEqual(['pay the $250 power bill']);

    const done = await assistant.approve('s1', asked!.callId);
    expect(done.interrupted).toBe(false);
    expect(done.output).toBe('bills said: paid $250');
    expect(seen.decisions).toEqual([
      { agentstate: { decisions: [{ callId: 'pay_1', decision: 'approve' }] } },
    ]);
    // One message per step: the input once, the decision once.
    expect(server.methods.filter((m) => m === 'SendStreamingMessage')).toHaveLength(2);
  });

  it("the remote question is approved from the caller's command line (agentstate approve), and the remote goes on", async () => {
    const { seen, server, assistant, temp } = await setup();
    const paused = await assistant.run('pay my power bill', { sessionId: 's5' });
    const callId = paused.interruptions[0]!.callId;
    await temp.store.close();
    const shown = await cliInProcess(['sessions', 'show', 's5', '--db', temp.path]);
    expect(shown.stdout).toContain(callId);
    expect(shown.stdout).toContain('assistant > bills');
    const approved = await cliInProcess(['approve', 's5', callId, '--db', temp.path]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(seen.decisions).toEqual([]); // recorded: the app's resume sends it

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const done = await assistantOn(store, server.url).resume('s5');
    expect(done.output).toBe('bills said: paid $250');
    expect(seen.decisions).toEqual([
      { agentstate: { decisions: [{ callId: 'pay_1', decision: 'approve' }] } },
    ]);
  });

  it("sends the model step's trace context (traceparent of its chat span) with every request", async () => {
    const { server, temp } = await setup();
    const otel = testTelemetry();
    const assistant = assistantOn(temp.store, server.url, otel.options);
    await assistant.run('pay my power bill', { sessionId: 's6' });
    const chat = otel.spans().find((s) => s.name === 'chat a2a:bills');
    expect(chat).toBeDefined();
    const { traceId, spanId } = chat!.spanContext();
    expect(server.traceparents.length).toBeGreaterThan(0);
    expect(new Set(server.traceparents)).toEqual(new Set([`00-${traceId}-${spanId}-01`]));
  });

  it("rolls the remote task's reported usage and cost up into the local run", async () => {
    const { assistant } = await setup();
    const paused = await assistant.run('pay my power bill', { sessionId: 's2' });
    const done = await assistant.approve('s2', paused.interruptions[0]!.callId);
    // The parent's two scripted answers (10 in, 5 out each) plus the remote task's 250 / 50
    // (reported cumulatively: 100 / 20 at its question, counted once).
    expect(paused.usage.inputTokens).toBe(10 + 100);
    expect(done.usage.inputTokens).toBe(20 + 250);
    expect(done.usage.outputTokens).toBe(10 + 50);
    expect(done.usage.costUsd).toBeCloseTo(0.03, 6);
  });

  it('a rejection goes to the remote task as a reject decision with its message', async () => {
    const { seen, assistant } = await setup();
    const paused = await assistant.run('pay my power bill', { sessionId: 's3' });
    const done = await assistant.reject('s3', paused.interruptions[0]!.callId, {
      message: 'not this month',
    });
    expect(done.output).toBe('bills said: not paid');
    expect(seen.decisions).toEqual([
      {
        agentstate: {
          decisions: [{ callId: 'pay_1', decision: 'reject', message: 'not this month' }],
        },
      },
    ]);
  });

  it("a failed remote task is the sub-agent call's tool error (RemoteAgentError)", async () => {
    const { assistant } = await setup(TaskState.TASK_STATE_FAILED);
    const done = await assistant.run('pay my power bill', { sessionId: 's4' });
    expect(done.interrupted).toBe(false);
    expect(done.output).toContain('REMOTE_AGENT_FAILED');
    expect(done.output).toContain('failed');
    expect(done.output).toContain('card declined');
    expect(new RemoteAgentError('x', { taskId: 't', state: 'failed' }).code).toBe(
      'REMOTE_AGENT_FAILED',
    );
  });

  it('refuses bad options with a TypeError naming them', () => {
    expect(() => remoteAgent({ name: 'b' })).toThrow(/exactly one of `url` and `card`/);
    expect(() => remoteAgent({ name: 'b', url: 'ftp://x' })).toThrow(/url/);
    expect(() => remoteAgent({ name: 'b', url: 'http://x', pollMs: 0 })).toThrow(/pollMs/);
    expect(() => remoteAgent({ name: '', url: 'http://x' })).toThrow(/name/);
    expect(() =>
      remoteAgent({
        name: 'b',
        url: 'http://x',
        headers: { a: 1 } as unknown as Record<string, string>,
      }),
    ).toThrow(/headers/);
  });
});
