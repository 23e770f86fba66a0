import { z } from 'zod';
import type { SessionKey } from './session-store.js';

/**
 * How a queued message is taken: `'queue'` as the session's next run; `'steer'` into the
 * running run's history before its next model call (else, like `'queue'`, as the next run).
 */
export type QueuedKind = 'queue' | 'steer';

/** A message sent while the session's run was busy, kept until a run takes it. */
export interface MessageSubmission {
  key: SessionKey;
  kind: QueuedKind;
  /** Plain-JSON items of the message (`Item`s, checked by the runtime when taken). */
  items: unknown[];
  /** Plain-JSON run options of the message's own run (`maxTurns`, `metadata`, ...). */
  options: Record<string, unknown>;
  /** Epoch milliseconds. */
  at: number;
}

/** A message waiting in a session's message inbox. */
export interface QueuedMessage extends MessageSubmission {
  /** Its place in the session's inbox (ids sort in the order the messages were queued). */
  id: string;
}

/**
 * A per-session inbox of messages sent while the session's run was busy
 * (`whileBusy: 'queue' | 'steer'`). A message leaves it in the same atomic write as the step
 * that takes it (`SessionCommit.dequeued`), so it is answered exactly once, also across a
 * crash; the version check and the session's lease make a take exclusive. Optional.
 */
export interface MessageInbox {
  /** Stores a message at the end of its session's inbox and returns it with its id. */
  queueMessage(message: MessageSubmission): Promise<QueuedMessage>;
  /**
   * The session's queued messages, oldest first (`limit` at most), each checked against its
   * key: a damaged one is `InvalidSessionRecordError` naming it. Another user's are never seen.
   */
  queuedMessages(key: SessionKey, query?: { limit?: number }): Promise<QueuedMessage[]>;
  /** Removes one queued message without taking it; resolves whether it was there. */
  dropQueuedMessage(key: SessionKey, id: string): Promise<boolean>;
  /**
   * The sessions of one owner (`userId`; omitted: the anonymous bucket) whose inbox holds a
   * message, by session id, `limit` at most (default 100): where recovery looks for messages
   * no run took (the process that ran the session died before its end read the inbox).
   * Optional: without it, recovery leaves such messages to the session's next run.
   */
  queuedSessions?(query: { userId?: string | undefined; limit?: number }): Promise<SessionKey[]>;
}

/** The stored value of a queued message (its key names the session and the id). */
export const QueuedValueSchema = z.lazy(() =>
  z.object({
    kind: z.enum(['queue', 'steer']),
    items: z.array(z.unknown()),
    options: z.record(z.string(), z.unknown()),
    at: z.number().int().nonnegative(),
  }),
);

/** A message's stored value, checked (`TypeError` naming what is wrong: nothing is stored). */
export function queuedValue(message: MessageSubmission): z.output<typeof QueuedValueSchema> {
  const parsed = QueuedValueSchema.safeParse({
    kind: message.kind,
    items: message.items,
    options: message.options,
    at: message.at,
  });
  if (!parsed.success) {
    throw new TypeError(`queueMessage: ${parsed.error.issues[0]?.message ?? 'bad message'}`);
  }
  return parsed.data;
}

/** The `limit` of a `queuedMessages` (or `queuedSessions`) query (`TypeError` unless a positive integer). */
export function queuedLimit(
  query: { limit?: number } | undefined,
  what = 'queuedMessages',
): number {
  const limit = query?.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`${what}: limit must be a positive integer, got ${limit}`);
  }
  return limit;
}

/** What the runtime raises inside an action whose queued message another run took first. */
export class QueuedMessageGone extends Error {
  constructor(readonly id: string) {
    super(`the queued message ${id} was taken or dropped meanwhile`);
    this.name = 'QueuedMessageGone';
  }
}
