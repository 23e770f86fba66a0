import type { Item } from './item.js';

/**
 * The tool calls of the current turn while a conversation is read in order, to tell whether
 * each tool result answers one of them. A turn starts at a user message; a result answers a
 * call made since then (model APIs refuse a result whose call is not before it). A reader that
 * starts mid-conversation does not know the turn it starts in: until its first user message it
 * accepts every result, since the call may be before where it started.
 */
export class TurnCalls {
  private readonly calls = new Set<string>();

  /** @param turnKnown whether reading starts at the conversation's first item */
  constructor(private turnKnown: boolean) {}

  /** Takes the next item; `false` for a tool result that answers no call of its turn. */
  accepts(item: Item): boolean {
    switch (item.type) {
      case 'message':
        if (item.role === 'user') {
          this.calls.clear();
          this.turnKnown = true;
        }
        return true;
      case 'tool_call':
        this.calls.add(item.callId);
        return true;
      case 'tool_result':
        return !this.turnKnown || this.calls.has(item.callId);
      case 'reasoning':
      case 'summary':
        return true;
    }
  }
}
