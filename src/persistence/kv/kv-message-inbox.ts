import { monotonicIds } from '../../core/new-id.js';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import {
  QueuedValueSchema,
  queuedLimit,
  queuedValue,
  type MessageInbox,
  type MessageSubmission,
  type QueuedMessage,
} from '../message-inbox.js';
import * as keys from '../session-keys.js';
import { decodeStored, encodeStored } from '../session-schemas.js';
import type { SessionKey } from '../session-store.js';
import type { KvBackend } from './backends/kv-backend.js';
import type { WriteQueue } from './write-queue.js';

/**
 * The message inbox of a key-value store: one `m!<owner>!<sid>!<id>` entry per queued message,
 * written through the store's write queue (so a take, in a save's batch, and a queue or a drop
 * never interleave), ids from one monotonic ULID source (queue order is key order).
 */
export class KvMessageInbox implements MessageInbox {
  private readonly nextId = monotonicIds();

  constructor(
    private readonly backend: KvBackend,
    private readonly writes: WriteQueue,
    private readonly failed: (sessionId: string) => (error: unknown) => unknown,
  ) {}

  async queueMessage(message: MessageSubmission): Promise<QueuedMessage> {
    const value = queuedValue(message);
    const id = this.nextId();
    const entryKey = keys.messageKey(message.key, id);
    const queued: QueuedMessage = { key: message.key, id, ...value };
    const put = { type: 'put' as const, key: entryKey, value: encodeStored(entryKey, value) };
    return this.writes.run(
      async () => ({ ops: [put], written: () => queued }),
      this.failed(message.key.sessionId),
    );
  }

  async queuedMessages(key: SessionKey, query?: { limit?: number }): Promise<QueuedMessage[]> {
    const limit = queuedLimit(query);
    const range = keys.messageRange(key);
    const queued: QueuedMessage[] = [];
    for await (const [entryKey, text] of this.backend.iterate(range)) {
      const id = decodeURIComponent(entryKey.slice(range.gte.length));
      const value = decodeStored(entryKey, text, QueuedValueSchema);
      if (keys.messageKey(key, id) !== entryKey) {
        throw new InvalidSessionRecordError(entryKey, 'message id differs from its key');
      }
      queued.push({ key: { sessionId: key.sessionId, userId: key.userId }, id, ...value });
      if (queued.length >= limit) break;
    }
    return queued;
  }

  async queuedSessions(query: {
    userId?: string | undefined;
    limit?: number;
  }): Promise<SessionKey[]> {
    const limit = queuedLimit(query, 'queuedSessions');
    const { userId } = query;
    const owner = keys.messageOwnerRange(userId);
    const sessions: SessionKey[] = [];
    let range = owner;
    // One read per session: each skips the rest of the session's messages.
    while (sessions.length < limit) {
      let entryKey: string | undefined;
      for await (const [k] of this.backend.iterate(range)) {
        entryKey = k;
        break;
      }
      if (entryKey === undefined) break;
      const part = entryKey.slice(owner.gte.length, entryKey.indexOf('!', owner.gte.length));
      const key = { sessionId: decodeURIComponent(part), userId };
      sessions.push(key);
      range = { gte: keys.messageRange(key).lt, lt: owner.lt };
    }
    return sessions;
  }

  async dropQueuedMessage(key: SessionKey, id: string): Promise<boolean> {
    const entryKey = keys.messageKey(key, id);
    return this.writes.run(async (view) => {
      const there = (await view.get(entryKey)) !== undefined;
      return { ops: there ? [{ type: 'del', key: entryKey }] : [], written: () => there };
    }, this.failed(key.sessionId));
  }
}
