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
import { Agent, OpenAIModel, closeDefaultStores, tool, type Model } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';

const prices: Record<string, number> = { apple: 0.5, bread: 2.25, coffee: 7.8 };

const lookupPrice = tool({
  name: 'lookup_price',
  description: 'Returns the unit price in USD of a grocery item',
  parameters: z.object({ item: z.string().describe('item name, e.g. "apple"') }),
  execute: ({ item }) => {
    const price = prices[item.toLowerCase()];
    if (price === undefined) throw new Error(`no price for "${item}"`);
    return { item, price };
  },
});

const multiply = tool({
  name: 'multiply',
  description: 'Multiplies two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a * b,
});

function chooseModel(): Model {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey) {
    const model = process.env.AGENTSTATE_MODEL ?? 'gpt-4o-mini';
    console.log(
      `Using OpenAI model ${model}${process.env.OPENAI_BASE_URL ? ` at ${process.env.OPENAI_BASE_URL}` : ''}.`,
    );
    return new OpenAIModel({ model, apiKey, baseURL: process.env.OPENAI_BASE_URL });
  }
  console.log('No OPENAI_API_KEY set: using the offline scripted model.');
  return new ScriptedModel((request) => {
    const results = request.items.filter((i) => i.type === 'tool_result');
    if (results.length === 0)
      return { toolCalls: [{ name: 'lookup_price', arguments: { item: 'coffee' } }] };
    if (results.length === 1) {
      const { price } = JSON.parse(results[0]!.output) as { price: number };
      return { toolCalls: [{ name: 'multiply', arguments: { a: price, b: 3 } }] };
    }
    return { text: `Three bags of coffee cost $${Number(results[1]!.output).toFixed(2)}.` };
  });
}

const agent = new Agent({
  name: 'shopper',
  instructions: 'You answer shopping questions. Look prices up with tools; never guess.',
  model: chooseModel(),
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
