import type { SummaryItem, UserMessageItem } from './item.js';

/** How a summary reads to the model: a user message that says what it is. */
export function summaryMessage(summary: SummaryItem): UserMessageItem {
  return {
    type: 'message',
    role: 'user',
    content: `Summary of the earlier conversation:\n${summary.content}`,
  };
}
