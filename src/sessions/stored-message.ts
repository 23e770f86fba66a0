import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { Item } from '../items/item.js';
import { sendMessage } from '../actions/send-message.js';
import type { SessionAction } from '../actions/session-action.js';
import type { QueuedMessage } from '../persistence/message-inbox.js';

/**
 * The run of a queued message whose caller is not in this process. A message queued with a
 * `messageId` runs under it (recorded as answered, refused when the session answered it); one
 * stored without (queued before ids were kept, or sent without one) runs as it was.
 */
export function storedMessage(message: QueuedMessage): SessionAction<unknown> {
  const { maxTurns, metadata, modelSettings } = message.options as {
    maxTurns?: number;
    metadata?: Record<string, unknown>;
    modelSettings?: Record<string, unknown>;
  };
  const messageId = queuedMessageId(message);
  return sendMessage(checkedItems(message), {
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
    ...(messageId === undefined ? {} : { messageId }),
  });
}

/** The `messageId` a queued message was sent with, if any (`RunOptions.messageId`). */
export function queuedMessageId(message: QueuedMessage): string | undefined {
  const id = message.options['messageId'];
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** A queued message's items, checked (`InvalidSessionRecordError` naming it). */
export function checkedItems(message: QueuedMessage): Item[] {
  const parsed = Item.array().safeParse(message.items);
  if (!parsed.success) {
    throw new InvalidSessionRecordError(`queued message ${message.id}`, parsed.error.message);
  }
  return parsed.data;
}
