import { hasMessageInbox } from '../persistence/store-supports.js';
import type { SessionLog } from '../actors/session-log.js';
import { QueuedMessageGone, type QueuedMessage } from '../persistence/message-inbox.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';

/** How far into a session's inbox a run looks for the queued message it takes. */
const LOOK = 100;

/**
 * Marks `message` taken by the loaded session (its next save removes it from the inbox), once
 * it is checked to be still queued: read under the session's lease (or this process's hold on
 * the session), so no other run takes it between the read and that save. Gone (another run
 * took it, or its caller dropped it): `QueuedMessageGone`, nothing changed.
 */
export async function takeQueued(
  store: SessionStore,
  key: SessionKey,
  log: SessionLog,
  message: QueuedMessage,
): Promise<void> {
  if (!hasMessageInbox(store) || log.took(message.id)) throw new QueuedMessageGone(message.id);
  const queued = await store.queuedMessages(key, { limit: LOOK });
  if (!queued.some((m) => m.id === message.id)) throw new QueuedMessageGone(message.id);
  log.take(message.id);
}
