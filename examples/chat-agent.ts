/**
 * The agent behind the example chat page (`examples/chat-server.ts`): a coffee shop assistant
 * that looks prices up and places orders, each order only once a human approves it.
 *
 * Offline it answers with `shopScript` through a `PacedModel`, which streams its text word by
 * word at a pace of its caller's choosing; `examples/chat-server.ts` uses OpenAI instead when
 * OPENAI_API_KEY is set (`modelFromEnv`).
 */
import { z } from 'zod';
import {
  Agent,
  tool,
  type Model,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamEvent,
  type SessionStore,
} from '../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../src/testing.js';
import { groceryItems, lookupPrice, priceOf } from './grocery-tools.js';

/** Places an order: always asks a human first. The call id is the order's idempotency key. */
const placeOrder = tool({
  name: 'place_order',
  description: 'Orders a quantity of a grocery item for the user',
  parameters: z.object({ item: z.string(), quantity: z.number().int().positive() }),
  needsApproval: true,
  execute: ({ item, quantity }, { callId }) => ({
    orderId: `order-${callId}`,
    item,
    quantity,
    totalUsd: Math.round(priceOf(item) * quantity * 100) / 100,
  }),
});

/** The last user message's text. */
function lastUserText(request: ModelRequest): string {
  for (let i = request.items.length - 1; i >= 0; i--) {
    const item = request.items[i]!;
    if (item.type === 'message' && item.role === 'user') {
      return typeof item.content === 'string' ? item.content : '';
    }
  }
  return '';
}

/**
 * The offline shop assistant: "what does coffee cost?" looks the price up and says it; "order
 * 2 coffee" asks to place the order (which waits for an approval) and reports the outcome.
 */
export function shopScript(request: ModelRequest): ScriptedResponse {
  const last = request.items[request.items.length - 1];
  if (last?.type === 'tool_result' && last.name === 'lookup_price') {
    if (last.isError) return { text: `I could not find that price: ${last.output}` };
    const { item, price } = JSON.parse(last.output) as { item: string; price: number };
    return {
      text: `One ${item} costs $${price.toFixed(2)} today. Ask me to order some and I will place the order once you approve it.`,
    };
  }
  if (last?.type === 'tool_result' && last.name === 'place_order') {
    if (last.isError) return { text: `I did not place the order: ${last.output}` };
    const order = JSON.parse(last.output) as {
      orderId: string;
      item: string;
      quantity: number;
      totalUsd: number;
    };
    return {
      text: `Ordered ${order.quantity} ${order.item} for $${order.totalUsd.toFixed(2)} (${order.orderId}).`,
    };
  }
  const said = lastUserText(request).toLowerCase();
  const item = groceryItems.find((name) => said.includes(name));
  if (item && /\b(order|buy)\b/.test(said)) {
    const quantity = Number(/\b(\d+)\b/.exec(said)?.[1] ?? '1');
    return { toolCalls: [{ name: 'place_order', arguments: { item, quantity } }] };
  }
  if (item) return { toolCalls: [{ name: 'lookup_price', arguments: { item } }] };
  return {
    text: 'I am the offline shop assistant. Ask me what coffee costs, or to order 2 coffee.',
  };
}

/**
 * A scripted model that streams its text one word at a time, each word after `pace()`
 * resolves: a short timer for the demo, a gate under a test's control in the page's test.
 */
export class PacedModel extends ScriptedModel {
  constructor(
    script: (request: ModelRequest) => ScriptedResponse,
    private readonly pace: () => Promise<void>,
  ) {
    super(script, { name: 'scripted-shop' });
  }

  override async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncIterable<ModelStreamEvent> {
    for await (const event of super.stream(request, options)) {
      if (event.type === 'text_delta') await this.pace();
      yield event;
    }
  }
}

/** The shop assistant with `model`, its sessions in `store` (default: the default store). */
export function shopAgent(model: Model, store?: SessionStore): Agent {
  return new Agent({
    name: 'shop',
    instructions:
      'You help with grocery shopping. Look prices up with lookup_price; never guess. ' +
      'Place orders with place_order when the user asks for one.',
    model,
    tools: [lookupPrice, placeOrder],
    ...(store ? { store } : {}),
  });
}
