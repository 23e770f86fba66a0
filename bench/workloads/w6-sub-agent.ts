import { join } from 'node:path';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  benchAgent,
  openRecordedStore,
  tempDir,
  timeMessages,
  perMessageFigures,
  type PerMessageFigures,
  userMessage,
  W1_SESSION,
} from '../fixtures.js';

/** One run of W6: W1's conversation, each message answered through one sub-agent call. */
export interface W6Run extends PerMessageFigures {
  messages: number;
  totalMs: number;
  batches: number;
}

/**
 * A parent that hands each user message to the bench agent as a sub-agent (`asTool`), then
 * answers with its result: per message 2 parent model calls, and the child's 2 model calls and
 * tool call (W1's message, one level down).
 */
function parentAgent(): Agent {
  const child = benchAgent();
  const model = new ScriptedModel(
    (request) => {
      const last = request.items[request.items.length - 1];
      return last?.type === 'message' && last.role === 'user'
        ? { toolCalls: [{ name: 'ask_adder', arguments: { input: last.content } }] }
        : { text: last?.type === 'tool_result' ? last.output : '' };
    },
    { name: 'bench-model', recordCalls: false },
  );
  return new Agent({
    name: 'parent',
    model,
    tools: [child.asTool({ name: 'ask_adder', description: 'Adds numbers' })],
    maxTurns: 10,
  });
}

/** W6, one sub-agent call per message: `messages` messages to one session. */
export async function runW6(options: { messages: number }): Promise<W6Run> {
  const dir = await tempDir('agentstate-w6-');
  const { store } = await openRecordedStore(join(dir.path, 'db'));
  const agent = parentAgent();
  try {
    const { totalMs, times, bytes } = await timeMessages(store, options.messages, async (i) => {
      const run = await agent.run(userMessage(i), { ...W1_SESSION, store });
      if (run.subRuns.length !== 1 || run.subRuns[0]!.turns !== 2) {
        throw new Error(`message ${i} did not run one two-turn sub-agent`);
      }
    });
    return {
      messages: options.messages,
      totalMs,
      ...perMessageFigures({ times, bytes }),
      batches: store.stats().batches,
    };
  } finally {
    await store.close();
    await dir.cleanup();
  }
}
