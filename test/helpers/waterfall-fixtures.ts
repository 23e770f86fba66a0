import { z } from 'zod';
import { Agent, tool, type Item, type ModelRequest, type SessionStore } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';

/** The secret the `desk` conversation carries; the inspector's `redact` scrubs it. */
export const SECRET = 'sk-live-SECRET42';

/** The inspector's `redact` for `SECRET`. */
export const redactSecret = (text: string) => text.replaceAll(SECRET, '[REDACTED]');

const lastResult = (request: ModelRequest): string | undefined => {
  const last: Item | undefined = request.items[request.items.length - 1];
  return last?.type === 'tool_result' ? last.output : undefined;
};

const userTexts = (request: ModelRequest): string[] =>
  request.items.flatMap((i) =>
    i.type === 'message' && i.role === 'user' && typeof i.content === 'string' ? [i.content] : [],
  );

/**
 * A `desk` agent on a fake clock whose steps take known times: each model call 200 ms, each
 * tool call 50 ms. "refund <order>" goes to the `billing` sub-agent (its `refund` needs a
 * human's approval); the desk's next model call after billing answers fails once (`failNext`),
 * so resuming retries it; anything else the desk answers at once. Its context window keeps the
 * last 4 items.
 */
export function deskApp(store: SessionStore) {
  const clock = new FakeClock();
  const state = { failNext: false };
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => {
      clock.advance(50);
      return `order ${order} refunded`;
    },
  });
  const billing = new Agent({
    name: 'billing',
    clock,
    store,
    tools: [refund],
    model: new ScriptedModel((request) => {
      clock.advance(200);
      const result = lastResult(request);
      if (result !== undefined) return { text: `billing: ${result}` };
      const order = /order (\w[\w-]*)/.exec(userTexts(request)[0] ?? '')?.[1] ?? '?';
      return { toolCalls: [{ name: 'refund', arguments: { order } }] };
    }),
  });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an order up',
    parameters: z.object({ order: z.string().describe('The order id') }),
    execute: ({ order }) => {
      clock.advance(50);
      return `order ${order} is shipped`;
    },
  });
  const desk = new Agent({
    name: 'desk',
    clock,
    store,
    history: { lastItems: 4 },
    modelSettings: { temperature: 0.3 },
    tools: [billing.asTool({ name: 'ask_billing', description: 'Billing questions' }), lookup],
    model: new ScriptedModel((request) => {
      clock.advance(200);
      const result = lastResult(request);
      if (result !== undefined) {
        if (state.failNext) {
          state.failNext = false;
          return { error: 'upstream overloaded' };
        }
        return { text: `desk: ${result}`, usage: { inputTokens: 120, outputTokens: 30 } };
      }
      const text = userTexts(request).at(-1) ?? '';
      if (text.startsWith('refund')) {
        state.failNext = true;
        return { toolCalls: [{ name: 'ask_billing', arguments: { input: text } }] };
      }
      return { text: `desk heard: ${text}` };
    }),
  });
  return { desk, billing, clock };
}

/**
 * Session `refund-w`: the desk asks billing to refund; billing's refund waits 5 s for its
 * approval; then the desk's model call fails (the run stops, interrupted by the error).
 */
export async function refundThatFails(app: ReturnType<typeof deskApp>) {
  const { desk, clock } = app;
  const key = { sessionId: 'refund-w', userId: 'ann' };
  const paused = await desk.run('refund order o-7', key);
  const callId = paused.interruptions[0]!.callId;
  clock.advance(5_000);
  const failed = await desk.approve(key.sessionId, callId, { userId: key.userId });
  return { key, paused, failed };
}

/** `refundThatFails`, then the failed model call is retried 1 s later on resume. */
export async function refundWithRetry(app: ReturnType<typeof deskApp>) {
  const { desk, clock } = app;
  const { key, paused, failed } = await refundThatFails(app);
  clock.advance(1_000);
  const done = await desk.resume(key.sessionId, { userId: key.userId });
  return { key, paused, failed, done };
}

/** Session `long-w`: six turns; the last one carries `SECRET`; the window keeps 4 items. */
export async function longConversation(app: ReturnType<typeof deskApp>) {
  const key = { sessionId: 'long-w', userId: 'ann' };
  for (let i = 1; i <= 5; i++) await app.desk.run(`turn ${i} words`, key);
  await app.desk.run(`turn 6 my key is ${SECRET}`, key);
  return key;
}
