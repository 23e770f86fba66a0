/**
 * The agents of examples/sub-agents.ts: a triage agent with two specialists as sub-agents
 * (billing, whose refund needs a human's approval, and shipping). Its own module so that tests
 * and `agentstate check` can import it.
 */
import { z } from 'zod';
import { Agent, getRunContext, tool, type ModelRequest } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';

/** The last tool result of a request, if the request ends with one. */
function lastResult(request: ModelRequest): string | undefined {
  const last = request.items[request.items.length - 1];
  return last?.type === 'tool_result' ? last.output : undefined;
}

/** A specialist that calls its one tool, then answers with what it said. */
function specialist(name: string, call: { name: string; arguments: object }): ScriptedModel {
  return new ScriptedModel((request) => {
    const result = lastResult(request);
    return result === undefined
      ? { toolCalls: [{ name: call.name, arguments: { ...call.arguments } }] }
      : { text: `${name}: ${result}` };
  });
}

export interface SupportOptions {
  /** Where the specialists' tools tell what they do. @default nowhere */
  say?: ((line: string) => void) | undefined;
  /** Whether billing's refund needs a human's approval. @default true */
  refundNeedsApproval?: boolean | undefined;
}

/** The triage agent and its two specialists; the store is given per call. */
export function supportAgent(options: SupportOptions = {}): Agent {
  const say = options.say ?? ((): void => undefined);
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order to the card it was paid with',
    parameters: z.object({ order: z.string(), amountUsd: z.number().positive() }),
    needsApproval: options.refundNeedsApproval ?? true,
    execute: ({ order, amountUsd }) => {
      say(`  [billing] refunding $${amountUsd} for ${order} (run ${getRunContext().runId})`);
      return `refunded $${amountUsd} for ${order}`;
    },
  });
  const track = tool({
    name: 'track',
    description: 'Finds where a parcel is',
    parameters: z.object({ order: z.string() }),
    execute: ({ order }) => {
      say(`  [shipping] tracking ${order} for ${getRunContext().userId ?? 'anonymous'}`);
      return `${order} is in the depot in Lyon, out for delivery tomorrow`;
    },
  });
  const billing = new Agent({
    name: 'billing',
    instructions: 'You handle refunds.',
    model: specialist('billing', { name: 'refund', arguments: { order: 'A-77', amountUsd: 42 } }),
    tools: [refund],
  });
  const shipping = new Agent({
    name: 'shipping',
    instructions: 'You track parcels.',
    model: specialist('shipping', { name: 'track', arguments: { order: 'A-77' } }),
    tools: [track],
  });
  const model = new ScriptedModel((request) => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    if (results.length === 0) {
      return {
        toolCalls: [
          { name: 'ask_billing', arguments: { input: 'Refund order A-77 ($42).' } },
          { name: 'ask_shipping', arguments: { input: 'Where is order A-77?' } },
        ],
      };
    }
    return { text: results.map((r) => (r.type === 'tool_result' ? r.output : '')).join(' | ') };
  });
  return new Agent({
    name: 'triage',
    instructions: 'You route customer messages to the right specialists.',
    model,
    tools: [
      billing.asTool({ name: 'ask_billing', description: 'Refunds and invoices' }),
      shipping.asTool({ name: 'ask_shipping', description: 'Parcel tracking' }),
    ],
  });
}

/** The support agent as the example runs it (refunds need approval). */
export const support = supportAgent();
