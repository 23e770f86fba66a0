import { contentText, type Item } from '../items/item.js';
import { parsedArguments } from './ui-message-chunk.js';

/** A part of a history message as the AI SDK's `UIMessage` has it. */
export type UiPart =
  | { type: 'text'; text: string; state: 'done' }
  | {
      type: `tool-${string}`;
      toolCallId: string;
      state: 'input-available' | 'approval-requested' | 'output-available' | 'output-error';
      input: unknown;
      output?: unknown;
      errorText?: string;
      approval?: { id: string };
    };

/** A history message as the AI SDK's `UIMessage` (`useChat`'s `messages`). */
export interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: UiPart[];
}

/**
 * A session's history as UI messages: each user message, then one assistant message for what
 * the runs answered until the next one (texts and tool parts with their outputs). A call in
 * `waiting` is `approval-requested` (its approval id is the call id). Ids are `item-<position>`
 * of the message's first item. Developer, system and summary items are not shown.
 */
export function uiMessagesOf(
  items: readonly Item[],
  from: number,
  waiting: ReadonlySet<string>,
): UiMessage[] {
  const messages: UiMessage[] = [];
  const tools = new Map<string, Extract<UiPart, { toolCallId: string }>>();
  const assistant = (position: number): UiMessage => {
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') return last;
    const created: UiMessage = { id: `item-${position}`, role: 'assistant', parts: [] };
    messages.push(created);
    return created;
  };
  items.forEach((item, i) => {
    const position = from + i;
    if (item.type === 'message' && item.role === 'user') {
      const text = contentText(item.content);
      messages.push({
        id: `item-${position}`,
        role: 'user',
        parts: [{ type: 'text', text, state: 'done' }],
      });
    } else if (item.type === 'message' && item.role === 'assistant') {
      const text = contentText(item.content);
      if (text) assistant(position).parts.push({ type: 'text', text, state: 'done' });
    } else if (item.type === 'tool_call') {
      const part: Extract<UiPart, { toolCallId: string }> = {
        type: `tool-${item.name}`,
        toolCallId: item.callId,
        state: waiting.has(item.callId) ? 'approval-requested' : 'input-available',
        input: parsedArguments(item.arguments),
        ...(waiting.has(item.callId) ? { approval: { id: item.callId } } : {}),
      };
      tools.set(item.callId, part);
      assistant(position).parts.push(part);
    } else if (item.type === 'tool_result') {
      const part = tools.get(item.callId);
      if (!part) return;
      const output = item.output;
      if (item.isError) Object.assign(part, { state: 'output-error', errorText: output });
      else Object.assign(part, { state: 'output-available', output });
    }
  });
  return messages;
}
