import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { contentText, type Item } from '../items/item.js';
import { ScriptedModel } from '../models/scripted-model.js';
import { tool } from '../tools/tool.js';

/** The text of the last user message among `items` ('' if none). */
export function lastUserText(items: readonly Item[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === 'message' && item.role === 'user') return contentText(item.content);
  }
  return '';
}

/** The number a simulated message ends with (`m17`: 17). */
const numberOf = (text: string): number => Number(/\d+$/.exec(text)?.[0] ?? 0);

/**
 * The simulation's default agent: plain JSON, no network. It answers `answer to <message>`; a
 * message whose number is odd first calls its one tool, `note`, so a run has one or two model
 * steps and a tool step between them (more saves to race). The call of a message whose number is
 * also a multiple of 3 needs approval: its run waits for a decision.
 */
export function simulatedAgent(): Agent {
  const note = tool({
    name: 'note',
    description: 'Notes a message.',
    parameters: z.object({ text: z.string() }),
    needsApproval: ({ text }) => numberOf(text) % 3 === 0,
    execute: ({ text }) => `noted ${text}`,
  });
  const model = new ScriptedModel((request) => {
    const text = lastUserText(request.items);
    const last = request.items.at(-1);
    const odd = numberOf(text) % 2 === 1;
    if (odd && last?.type === 'message' && last.role === 'user') {
      return { toolCalls: [{ name: 'note', arguments: { text } }] };
    }
    return { text: `answer to ${text}` };
  });
  return new Agent({
    name: 'simulated-writer',
    instructions: 'Answer each message.',
    model,
    tools: [note],
  });
}
