import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { Item } from '../items/item.js';
import { sendMessage } from '../actions/send-message.js';
import type { SessionAction } from '../actions/session-action.js';
import type { QueuedMessage } from '../persistence/message-inbox.js';

/** The run of a queued message whose caller is not in this process. */
export function storedMessage(message: QueuedMessage): SessionAction<unknown> {
  const { maxTurns, metadata, modelSettings } = message.options as {
    maxTurns?: number;
    metadata?: Record<string, unknown>;
    modelSettings?: Record<string, unknown>;
  };
  return sendMessage(checkedItems(message), {
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
  });
}

/** A queued message's items, checked (`InvalidSessionRecordError` naming it). */
export function checkedItems(message: QueuedMessage): Item[] {
  const parsed = Item.array().safeParse(message.items);
  if (!parsed.success) {
    throw new InvalidSessionRecordError(`queued message ${message.id}`, parsed.error.message);
  }
  return parsed.data;
}
