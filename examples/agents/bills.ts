/**
 * The agent of examples/approval.ts: it pays bills, and a bill over $100 needs a human's
 * approval. Its own module so that tests and `agentstate check` can import it.
 */
import { z } from 'zod';
import { Agent, contentText, tool, type ModelRequest } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';

/** Pays a bill. Amounts over $100 need a human's approval; the call id is the idempotency key. */
export const payBill = tool({
  name: 'pay_bill',
  description: 'Pays a bill from the checking account',
  parameters: z.object({ payee: z.string(), amountUsd: z.number().positive() }),
  needsApproval: ({ amountUsd }) => amountUsd > 100,
  execute: ({ payee, amountUsd }, { callId }) => ({
    payee,
    amountUsd,
    confirmation: `tx-${callId}`,
  }),
});

/** An offline stand-in for a real model: asks to pay, then reports what happened. */
const model = new ScriptedModel((request) => {
  const result = request.items.find((i) => i.type === 'tool_result');
  if (!result)
    return {
      toolCalls: [{ name: 'pay_bill', arguments: { payee: 'ACME Power', amountUsd: 120 } }],
    };
  if (result.isError) return { text: `I did not pay the bill: ${result.output}` };
  const paid = JSON.parse(result.output) as {
    payee: string;
    amountUsd: number;
    confirmation: string;
  };
  return {
    text: `Paid $${paid.amountUsd.toFixed(2)} to ${paid.payee} (confirmation ${paid.confirmation}).`,
  };
});

/** The bills agent; its store is given per call. */
export const bills = new Agent({
  name: 'bills',
  instructions: "You pay the user's bills.",
  model,
  tools: [payBill],
});

/** The first user message of a request, as text. */
export function firstUserText(request: ModelRequest): string {
  const first = request.items.find((i) => i.type === 'message' && i.role === 'user');
  return first?.type === 'message' ? contentText(first.content) : '';
}

/**
 * An offline model that pays what the user asked (`Please pay <payee> $<n>.`), then says what
 * happened: the bills agent over many different requests (the evals example and tests).
 * `careless`: a deliberately worse candidate that pays $1 more than asked on every bill under
 * $50.
 */
export function billPayingModel(options: { careless?: boolean } = {}): ScriptedModel {
  return new ScriptedModel((request) => {
    const result = request.items.find((i) => i.type === 'tool_result');
    if (!result) {
      const asked = /pay (.+) \$(\d+)\./.exec(firstUserText(request));
      if (!asked) return { text: 'Which bill should I pay?' };
      const amount = Number(asked[2]);
      const amountUsd = options.careless === true && amount < 50 ? amount + 1 : amount;
      return { toolCalls: [{ name: 'pay_bill', arguments: { payee: asked[1]!, amountUsd } }] };
    }
    if (result.isError) return { text: `I did not pay the bill: ${result.output}` };
    const paid = JSON.parse(result.output) as { payee: string; amountUsd: number };
    return { text: `Paid $${paid.amountUsd.toFixed(2)} to ${paid.payee}.` };
  });
}
