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
import type { PostgresDatabase } from './postgres-database.js';
import { checkedSessionId } from './postgres-leases.js';

/** The sealed key of a queued message's value: `m!<owner>!<sid>` (the row holds its id). */
const sealKey = (key: SessionKey): string => `m!${keys.sessionPart(key)}`;

/** The message inbox's statements, built once per store (tables qualified with its schema). */
function messageStatements(t: (table: string) => string) {
  return {
    /**
     * $1 owner, $2 session, $3 value, $4 at: the new row's id. Counts the message on the
     * session's lease row (if any) in the same statement, under that row's lock: the release of
     * the lease held meanwhile sees it (`PostgresLeases.releaseLease`).
     */
    queue: `WITH ins AS (
        INSERT INTO ${t('agentstate_messages')} (owner, session_id, message, at)
        VALUES ($1, $2, $3, $4) RETURNING id
      ), mark AS (
        UPDATE ${t('agentstate_leases')} SET queued = queued + 1
        WHERE owner = $1 AND session_id = $2
      )
      SELECT id FROM ins`,
    /** $1 owner, $2 session, $3 limit: the session's messages, oldest first. */
    queued: `SELECT id, message FROM ${t('agentstate_messages')}
        WHERE owner = $1 AND session_id = $2 ORDER BY id LIMIT $3`,
    /** $1 owner, $2 limit: the owner's sessions with a queued message. */
    sessions: `SELECT DISTINCT session_id FROM ${t('agentstate_messages')}
        WHERE owner = $1 ORDER BY session_id LIMIT $2`,
    /** $1 owner, $2 session, $3 id. */
    drop: `DELETE FROM ${t('agentstate_messages')}
        WHERE owner = $1 AND session_id = $2 AND id = $3::bigint RETURNING 1`,
  };
}

/** The CTE of the save statement that takes queued messages (`$n` their ids), after `upd`. */
export function dequeueCte(t: (table: string) => string, n: number): string {
  return `dq AS (DELETE FROM ${t('agentstate_messages')} AS m USING upd
        WHERE m.owner = $1 AND m.session_id = $2 AND m.id = ANY($${n}::bigint[]))`;
}

/** The ids of a commit's taken messages as the save statement reads them (`TypeError` else). */
export function dequeuedIds(ids: readonly string[]): string[] {
  for (const id of ids) {
    if (!/^[1-9][0-9]{0,18}$/.test(id)) throw new TypeError(`not a queued message id: "${id}"`);
  }
  return [...ids];
}

/**
 * The message inbox on PostgreSQL: `agentstate_messages` rows keyed by (owner, session, id),
 * ids from a sequence (queue order). A step takes messages in its own save statement
 * (`dequeueCte`), so a message leaves the inbox exactly when the step that took it commits.
 */
export class PostgresMessages implements MessageInbox {
  private readonly sql: ReturnType<typeof messageStatements>;

  constructor(private readonly db: PostgresDatabase) {
    this.sql = messageStatements(db.table);
  }

  async queueMessage(message: MessageSubmission): Promise<QueuedMessage> {
    const { key } = message;
    checkedSessionId(key);
    const value = queuedValue(message);
    const { rows } = await this.db.query<{ id: string }>(
      'queue a message',
      key,
      () => this.sql.queue,
      [keys.ownerPart(key.userId), key.sessionId, encodeStored(sealKey(key), value), value.at],
    );
    return {
      key: { sessionId: key.sessionId, userId: key.userId },
      id: String(rows[0]!.id),
      ...value,
    };
  }

  async queuedMessages(key: SessionKey, query?: { limit?: number }): Promise<QueuedMessage[]> {
    const limit = queuedLimit(query);
    checkedSessionId(key);
    const { rows } = await this.db.query<{ id: string; message: string }>(
      'read queued messages',
      key,
      () => this.sql.queued,
      [keys.ownerPart(key.userId), key.sessionId, limit],
    );
    return rows.map((row) => {
      try {
        const value = decodeStored(sealKey(key), row.message, QueuedValueSchema);
        return {
          key: { sessionId: key.sessionId, userId: key.userId },
          id: String(row.id),
          ...value,
        };
      } catch (error) {
        if (error instanceof InvalidSessionRecordError) throw error;
        throw new InvalidSessionRecordError(`${sealKey(key)}!${row.id}`, String(error));
      }
    });
  }

  async queuedSessions(query: {
    userId?: string | undefined;
    limit?: number;
  }): Promise<SessionKey[]> {
    const limit = queuedLimit(query, 'queuedSessions');
    const { userId } = query;
    const { rows } = await this.db.query<{ session_id: string }>(
      'list sessions with queued messages',
      {},
      () => this.sql.sessions,
      [keys.ownerPart(userId), limit],
    );
    return rows.map((row) => ({ sessionId: row.session_id, userId }));
  }

  async dropQueuedMessage(key: SessionKey, id: string): Promise<boolean> {
    checkedSessionId(key);
    if (!/^[1-9][0-9]{0,18}$/.test(id)) return false; // not an id this inbox gave
    const checked = id;
    const { rows } = await this.db.query('drop a queued message', key, () => this.sql.drop, [
      keys.ownerPart(key.userId),
      key.sessionId,
      checked,
    ]);
    return rows.length === 1;
  }
}
