import { z } from 'zod';
import {
  Agent,
  getRunContext,
  tool,
  type AgentOptions,
  type AnyTool,
  type Item,
  type ModelRequest,
  type RunContext,
  type SessionStore,
} from '../../src/index.js';
import type { TempStores } from './temp-store.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';

/** The text of the last tool result a request carries, if its last item is one. */
export function lastResult(request: ModelRequest): string | undefined {
  const last: Item | undefined = request.items[request.items.length - 1];
  return last?.type === 'tool_result' ? last.output : undefined;
}

/** The first user message of a request (a sub-agent's input). */
export function firstUserText(request: ModelRequest): string {
  const first = request.items.find((i) => i.type === 'message' && i.role === 'user');
  return first?.type === 'message' && typeof first.content === 'string' ? first.content : '';
}

/** What the sub-agent fixtures' tools saw, in order. */
export interface Seen {
  contexts: { tool: string; context: RunContext }[];
  refunds: string[];
}

export interface SubAgentFixtureOptions {
  store: SessionStore;
  seen?: Seen;
  /** Overrides of the billing agent's options. */
  billing?: Partial<AgentOptions>;
  /** Overrides of the triage agent's options. */
  triage?: Partial<AgentOptions>;
  /** Options of the parent's sub-agent tool. */
  tool?: { failParent?: boolean; metadata?: Record<string, unknown> };
}

/**
 * A triage agent that hands an order question to a billing sub-agent: billing looks the order
 * up, refunds it when asked (a call a human approves), and answers; triage answers with what
 * billing said. Each model counts its calls.
 */
export function triageWithBilling(options: SubAgentFixtureOptions) {
  const seen: Seen = options.seen ?? { contexts: [], refunds: [] };
  const record = (name: string) => seen.contexts.push({ tool: name, context: getRunContext() });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an order up',
    parameters: z.object({ order: z.string() }),
    execute: ({ order }) => {
      record('lookup');
      return `order ${order} is shipped`;
    },
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => {
      record('refund');
      seen.refunds.push(order);
      return `order ${order} refunded`;
    },
  });
  const billingModel = new ScriptedModel(
    (request): ScriptedResponse => {
      const result = lastResult(request);
      const task = firstUserText(request);
      const order = /order (\w+)/.exec(task)?.[1] ?? '?';
      if (result === undefined) return { toolCalls: [{ name: 'lookup', arguments: { order } }] };
      if (task.includes('refund') && result.includes('shipped')) {
        return { toolCalls: [{ name: 'refund', arguments: { order } }] };
      }
      return { text: `billing: ${result}` };
    },
    { recordCalls: true },
  );
  const billing = new Agent({
    name: 'billing',
    instructions: 'You handle billing.',
    model: billingModel,
    tools: [lookup, refund],
    ...options.billing,
  });
  const audit = tool({
    name: 'audit',
    description: 'Notes what triage did',
    parameters: z.object({}),
    execute: () => {
      record('audit');
      return 'noted';
    },
  });
  const triageModel = new ScriptedModel(
    (request): ScriptedResponse => {
      const result = lastResult(request);
      const task = firstUserText(request);
      if (result === undefined) {
        return { toolCalls: [{ name: 'ask_billing', arguments: { input: task } }] };
      }
      if (result !== 'noted') return { toolCalls: [{ name: 'audit', arguments: {} }] };
      const answer = request.items.filter((i) => i.type === 'tool_result').at(-2);
      return { text: `triage: ${answer?.type === 'tool_result' ? answer.output : '?'}` };
    },
    { recordCalls: true },
  );
  const tools: AnyTool[] = [
    billing.asTool({
      name: 'ask_billing',
      description: 'Answers billing questions',
      ...(options.tool?.metadata ? { metadata: options.tool.metadata } : {}),
      ...(options.tool?.failParent ? { failParent: true } : {}),
    }),
    audit,
  ];
  const triage = new Agent({
    name: 'triage',
    instructions: 'You route questions.',
    model: triageModel,
    tools,
    store: options.store,
    ...options.triage,
  });
  return { triage, billing, triageModel, billingModel, seen };
}

/**
 * A store from `temps` where Ann's session `s1` waits for a refund approval deep in the billing
 * sub-agent (`triageWithBilling`), with triage's runtime on it.
 */
export async function annWaitsForRefund(temps: TempStores) {
  const temp = await temps.open();
  const fixture = triageWithBilling({ store: temp.store });
  const runtime = fixture.triage.runtimeFor(temp.store);
  const paused = await fixture.triage.run('please refund order o-1', {
    sessionId: 's1',
    userId: 'ann',
  });
  return { temp, fixture, runtime, paused };
}
