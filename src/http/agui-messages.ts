import { contentText, type Item } from '../items/item.js';
import type { AguiMessage } from './agui-event.js';

/**
 * A session's history as AG-UI messages (a `MESSAGES_SNAPSHOT`): each user message; an
 * assistant message per text the runs answered, the tool calls that follow a text (or open a
 * message of their own) in its `toolCalls`; each tool result as a tool message (a failed one
 * with its output as `error` too). Ids are `item-<position>` of the message's first item, as the
 * UI history has them. Developer, system, summary and reasoning items are not shown.
 */
export function aguiMessagesOf(items: readonly Item[], from: number): AguiMessage[] {
  const messages: AguiMessage[] = [];
  items.forEach((item, i) => {
    const id = `item-${from + i}`;
    if (item.type === 'message' && item.role === 'user') {
      messages.push({ id, role: 'user', content: contentText(item.content) });
    } else if (item.type === 'message' && item.role === 'assistant') {
      const text = contentText(item.content);
      if (text) messages.push({ id, role: 'assistant', content: text });
    } else if (item.type === 'tool_call') {
      let last = messages[messages.length - 1];
      if (last?.role !== 'assistant') {
        last = { id, role: 'assistant' };
        messages.push(last);
      }
      const call = { name: item.name, arguments: item.arguments };
      last.toolCalls = [
        ...(last.toolCalls ?? []),
        { id: item.callId, type: 'function', function: call },
      ];
    } else if (item.type === 'tool_result') {
      const { callId: toolCallId, output: content } = item;
      messages.push({
        id,
        role: 'tool',
        toolCallId,
        content,
        ...(item.isError ? { error: content } : {}),
      });
    }
  });
  return messages;
}
