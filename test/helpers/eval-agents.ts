import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { ModelRequest } from '../../src/models/model.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { tool } from '../../src/tools/tool.js';
import { bills } from '../../examples/agents/bills.js';
import { RecordingModel } from './recording-model.js';

/** The examples' bills agent, its model recording every request's bytes. */
export function recordedBills(): { agent: Agent; model: RecordingModel } {
  const model = new RecordingModel(bills.options.model);
  return { agent: new Agent({ ...bills.options, model }) as Agent, model };
}

const lastResult = (request: ModelRequest): string | undefined => {
  const last = request.items.at(-1);
  return last?.type === 'tool_result' ? last.output : undefined;
};

/**
 * A triage agent with a billing sub-agent whose refund needs approval (as
 * examples/agents/support.ts), every model recording its requests' bytes.
 */
export function recordedSupport(): {
  agent: Agent;
  models: { triage: RecordingModel; billing: RecordingModel };
} {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order to the card it was paid with',
    parameters: z.object({ order: z.string(), amountUsd: z.number().positive() }),
    needsApproval: true,
    execute: ({ order, amountUsd }) => `refunded $${amountUsd} for ${order}`,
  });
  const billingModel = new RecordingModel(
    new ScriptedModel((request) => {
      const result = lastResult(request);
      return result === undefined
        ? { toolCalls: [{ name: 'refund', arguments: { order: 'A-77', amountUsd: 42 } }] }
        : { text: `billing: ${result}` };
    }),
  );
  const billing = new Agent({
    name: 'billing',
    instructions: 'You handle refunds.',
    model: billingModel,
    tools: [refund],
  });
  const triageModel = new RecordingModel(
    new ScriptedModel((request) => {
      const result = lastResult(request);
      return result === undefined
        ? { toolCalls: [{ name: 'ask_billing', arguments: { input: 'Refund order A-77 ($42).' } }] }
        : { text: `triage: ${result}` };
    }),
  );
  const agent = new Agent({
    name: 'triage',
    instructions: 'You route customer messages to the right specialists.',
    model: triageModel,
    modelSettings: { temperature: 0.2 },
    tools: [billing.asTool({ name: 'ask_billing', description: 'Refunds and invoices' })],
  });
  return { agent, models: { triage: triageModel, billing: billingModel } };
}

/** An agent whose history window summarizes older items and pins the newest user message. */
export function recordedSummarizer(): { agent: Agent; model: RecordingModel } {
  const model = new RecordingModel(
    new ScriptedModel((request) => ({ text: `answer ${request.items.length}` })),
  );
  const agent = new Agent({
    name: 'notes',
    instructions: 'You keep notes.',
    model,
    history: {
      maxTokens: 12,
      keepTokens: 6,
      countTokens: () => 5,
      summarize: (items) => `summary of ${items.length} items`,
    },
  });
  return { agent, model };
}
