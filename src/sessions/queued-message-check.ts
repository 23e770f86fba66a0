import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { MessageQueuedError } from '../errors/message-queued-error.js';
import { answeringRun } from '../machines/answered-messages.js';
import type { MessageInbox } from '../persistence/message-inbox.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { queuedMessageId } from './stored-message.js';

/**
 * Before a message with its own id (`RunOptions.messageId`) is stored in its session's inbox
 * (`whileBusy: 'queue' | 'steer'`): an id the session answered is `MessageAnsweredError` naming
 * the run; an id waiting in the inbox is `MessageQueuedError` naming the waiting message
 * (`again`). Either way nothing is stored. Two reads (the record, the inbox), made only for a
 * message with an id. Two sends of one id racing past this check are both stored: the record's
 * check when each is taken answers the first and refuses the second (dropped, never run).
 */
export async function checkQueuedMessageId(
  store: SessionStore & MessageInbox,
  key: SessionKey,
  messageId: string,
): Promise<void> {
  const record = await store.load(key).then(
    (r) => r,
    () => undefined, // not created yet: nothing answered
  );
  const runId = record && answeringRun(record.snapshot, messageId);
  if (runId !== undefined) throw new MessageAnsweredError(key.sessionId, messageId, runId, false);
  const waiting = (await store.queuedMessages(key)).find((m) => queuedMessageId(m) === messageId);
  if (waiting) throw new MessageQueuedError(key.sessionId, waiting.id, waiting.kind, true);
}
