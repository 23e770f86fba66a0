import { Agent, Runner, tool } from '@openai/agents';
import { z } from 'zod';
import { BenchPeerModel } from './bench-model.js';

/** The tool every benchmark message calls once (agentstate's `add`, on the peer's `tool()`). */
export const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

/** A fresh agent with the scripted model and the `add` tool, as agentstate's `benchAgent()`. */
export function benchPeerAgent(): Agent {
  return new Agent({ name: 'bench', model: new BenchPeerModel(), tools: [add] });
}

/**
 * The runner every peer workload uses. Tracing off: with no exporter configured the peer would
 * only build spans to drop them (agentstate's telemetry is likewise a no-op without an SDK).
 */
export function benchRunner(): Runner {
  return new Runner({ tracingDisabled: true });
}

/** The text of the i-th user message: the same as agentstate's bench (`userMessage`). */
export const userMessage = (i: number): string => `Message ${i}: what is ${i} + 2?`;

/** The session W1 writes and W3 resumes. */
export const W1_SESSION_ID = 'long-conversation';
