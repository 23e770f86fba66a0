import type { Item } from '../items/item.js';

/** Tokens counted per item for its role and framing, whatever its content. */
export const ITEM_OVERHEAD_TOKENS = 4;
/** Estimate for one image, or a file known only by id (its size is not known here). */
export const ATTACHMENT_TOKENS = 1000;
/** Characters per token of ordinary text. */
const CHARS_PER_TOKEN = 4;

/**
 * A rough token count of one item, without a tokenizer: its text's characters / 4, plus
 * {@link ITEM_OVERHEAD_TOKENS}; an image, or a file by id, counts {@link ATTACHMENT_TOKENS};
 * an inline file its decoded bytes / 4. Close enough to keep a window bounded; pass your own
 * `countTokens` for exact budgets.
 */
export function estimateTokens(item: Item): number {
  let chars = 0;
  let extra = 0;
  switch (item.type) {
    case 'message':
      if (typeof item.content === 'string') {
        chars = item.content.length;
        break;
      }
      for (const part of item.content) {
        if (part.type === 'text') chars += part.text.length;
        else if ('data' in part && part.type === 'file') chars += (part.data.length * 3) / 4;
        else extra += ATTACHMENT_TOKENS;
      }
      break;
    case 'tool_call':
      chars = item.name.length + item.arguments.length;
      break;
    case 'tool_result':
      chars = item.output.length;
      break;
    case 'summary':
      chars = item.content.length;
      break;
    case 'reasoning':
      // Summary texts, and the encrypted content's decoded bytes.
      chars = (item.summary ?? []).join('').length + ((item.encryptedContent?.length ?? 0) * 3) / 4;
      break;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + ITEM_OVERHEAD_TOKENS + extra;
}
