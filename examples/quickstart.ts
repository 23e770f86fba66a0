/**
 * Quickstart: an agent with two tools answers a multi-step question.
 *
 *   npm run demo
 *
 * Offline (no OPENAI_API_KEY) it uses the scripted model; with OPENAI_API_KEY it calls
 * OpenAI (OPENAI_BASE_URL and AGENTSTATE_MODEL are honoured, so any OpenAI-compatible server
 * works). The session is stored in LevelDB under ./.agentstate (or AGENTSTATE_DIR).
 */
import { z } from 'zod';
import { Agent, closeDefaultStores, tool } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';
import { lookupPrice } from './grocery-tools.js';
import { modelFromEnv } from './model-from-env.js';

const multiply = tool({
  name: 'multiply',
  description: 'Multiplies two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a * b,
});

/** The offline stand-in for a model: looks the price up, multiplies, answers. */
const offlineModel = (): ScriptedModel =>
  new ScriptedModel((request) => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    if (results.length === 0)
      return { toolCalls: [{ name: 'lookup_price', arguments: { item: 'coffee' } }] };
    if (results.length === 1) {
      const { price } = JSON.parse(results[0]!.output) as { price: number };
      return { toolCalls: [{ name: 'multiply', arguments: { a: price, b: 3 } }] };
    }
    return { text: `Three bags of coffee cost $${Number(results[1]!.output).toFixed(2)}.` };
  });

const agent = new Agent({
  name: 'shopper',
  instructions: 'You answer shopping questions. Look prices up with tools; never guess.',
  model: modelFromEnv(offlineModel),
  tools: [lookupPrice, multiply],
});

try {
  const result = await agent.run('How much do three bags of coffee cost?', {
    sessionId: `quickstart-${Date.now()}`,
    userId: 'demo',
  });
  console.log(`Answer: ${result.output ?? ''}`);
  console.log(`Turns: ${result.turns}`);
  const cost = result.usage.costUsd;
  console.log(
    `Usage: ${result.usage.inputTokens} input tokens, ${result.usage.outputTokens} output tokens, ${cost === undefined ? 'cost unknown' : `$${cost.toFixed(6)}`}`,
  );
  console.log(
    `Run ${result.id} in session ${result.sessionId}, ${result.endedAt - result.startedAt} ms`,
  );
} finally {
  await closeDefaultStores();
}
