import { z } from 'zod';
import { Agent, OpenAIModel, tool, type SessionStore } from '../../src/index.js';

/**
 * An agent on the real OpenAIModel (no retries, so a failure surfaces at once) with one tool
 * that needs approval: shared by the model-error facts test and its child process.
 */
export function transferAgent(store: SessionStore, baseURL: string): Agent {
  const transfer = tool({
    name: 'transfer',
    description: 'Transfers money',
    parameters: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `transferred ${amount}`,
  });
  const model = new OpenAIModel({
    model: 'gpt-4.1-mini',
    apiKey: 'sk-test-facts',
    baseURL,
    maxRetries: 0,
  });
  return new Agent({ name: 'payments', model, tools: [transfer], store });
}
