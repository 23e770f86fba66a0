import { Item, type RunInput } from '../items/item.js';
import { TurnCalls } from '../items/turn-calls.js';
import { describeValue } from './option-checks.js';

/**
 * Checks what a caller passes as run input: a string (one user message) or an array of
 * conversation items. Throws a `TypeError` naming the call and, for an array, the first item
 * that is not one, or the first tool result that answers no call of its turn (after a user
 * message of the input, its call must be in the input too: the store refuses such a history).
 */
export function checkRunInput(call: string, input: unknown): asserts input is RunInput {
  if (typeof input === 'string') return;
  if (!Array.isArray(input)) {
    throw new TypeError(
      `${call}: input must be a string or an array of items, got ${describeValue(input)}`,
    );
  }
  const turn = new TurnCalls(false);
  for (const [index, item] of input.entries()) {
    const parsed = Item.safeParse(item);
    if (parsed.success && parsed.data.type === 'summary') {
      throw new TypeError(
        `${call}: input[${index}] is a summary item; summaries are written by the agent's context window (option "history")`,
      );
    }
    if (parsed.success) {
      const checked = parsed.data;
      if (!turn.accepts(checked) && checked.type === 'tool_result') {
        throw new TypeError(
          `${call}: input[${index}] is a tool result answering no tool call of its turn (callId ${JSON.stringify(checked.callId)})`,
        );
      }
      continue;
    }
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new TypeError(
      `${call}: input[${index}] is not an item (${issue?.message ?? 'invalid'}${where})`,
    );
  }
}
