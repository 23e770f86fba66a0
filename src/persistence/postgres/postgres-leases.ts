import { checkLeaseArgs, type LeaseClock } from '../lease-table.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import type {
  ExpiredLeaseQuery,
  LeaseReleased,
  SessionLease,
  SessionLeases,
  StoredLease,
} from '../session-leases.js';
import type { PostgresDatabase } from './postgres-database.js';

const DEFAULT_EXPIRED_LIMIT = 100;

/** The session id, after checking the key can be encoded (`TypeError` otherwise). */
export function checkedSessionId(key: SessionKey): string {
  keys.sessionPart(key);
  return key.sessionId;
}

export const keyOf = (record: SessionKey): { sessionId: string; userId: string | undefined } => ({
  sessionId: record.sessionId,
  userId: record.userId,
});

/** The lease table's statements, built once per store (table names qualified with its schema). */
function leaseStatements(t: (table: string) => string) {
  return {
    /**
     * $1 owner, $2 session, $3 holder, $4 now, $5 expiresAt. Granted when free, expired,
     * released or already held by $3 (same token then, a new one otherwise). With the grant:
     * whether the session's inbox holds a message, and the row's count of messages queued
     * (`mark`), both as of this statement's snapshot (a message committed after it counts at the
     * release: see `release`).
     */
    acquire: `INSERT INTO ${t('agentstate_leases')} AS l (owner, session_id, holder, token, expires_at, released)
        VALUES ($1, $2, $3, 1, $5, false)
        ON CONFLICT (owner, session_id) DO UPDATE SET
          token = CASE WHEN l.holder = EXCLUDED.holder AND NOT l.released AND l.expires_at > $4
            THEN l.token ELSE l.token + 1 END,
          holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at, released = false
        WHERE l.released OR l.expires_at <= $4 OR l.holder = EXCLUDED.holder
        RETURNING token, expires_at,
          (SELECT o.queued FROM ${t('agentstate_leases')} AS o
            WHERE o.owner = $1 AND o.session_id = $2) AS mark,
          EXISTS (SELECT 1 FROM ${t('agentstate_messages')} AS m
            WHERE m.owner = $1 AND m.session_id = $2) AS queued`,
    /** $1 owner, $2 session, $3 holder, $4 token, $5 expiresAt. */
    renew: `UPDATE ${t('agentstate_leases')} SET expires_at = $5
        WHERE owner = $1 AND session_id = $2 AND holder = $3 AND token = $4 AND NOT released
        RETURNING token`,
    /**
     * $1 owner, $2 session, $3 holder, $4 token; returns the row's count of queued messages as
     * it is once locked: each `queueMessage` adds one in its own statement, under the lease
     * row's lock, so a message committed before this release is counted in it.
     */
    release: `UPDATE ${t('agentstate_leases')} SET released = true
        WHERE owner = $1 AND session_id = $2 AND holder = $3 AND token = $4 AND NOT released
        RETURNING queued`,
    /** $1 owner, $2 expired before, $3 limit. */
    expired: `SELECT session_id FROM ${t('agentstate_leases')}
        WHERE owner = $1 AND NOT released AND expires_at <= $2 ORDER BY session_id LIMIT $3`,
    /** $1 owner, $2 session id. */
    leaseOf: `SELECT holder, token, expires_at, released FROM ${t('agentstate_leases')}
        WHERE owner = $1 AND session_id = $2`,
  };
}

/**
 * Session leases in PostgreSQL, shared by every process on the database: owner, fencing token
 * and expiry (by the store's clock) per session; an expired lease can be taken over.
 */
export class PostgresLeases implements SessionLeases {
  private readonly sql: ReturnType<typeof leaseStatements>;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: LeaseClock,
  ) {
    this.sql = leaseStatements(db.table);
  }

  async acquireLease(
    key: SessionKey,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    checkLeaseArgs(owner, ttlMs);
    const now = this.clock.now();
    const { rows } = await this.db.query<{
      token: string;
      expires_at: string;
      mark: string | null;
      queued: boolean;
    }>('acquire a lease', key, () => this.sql.acquire, [
      keys.ownerPart(key.userId),
      checkedSessionId(key),
      owner,
      now,
      now + ttlMs,
    ]);
    const row = rows[0];
    return (
      row && {
        ...keyOf(key),
        owner,
        token: Number(row.token),
        expiresAt: Number(row.expires_at),
        queued: row.queued,
        inboxMark: Number(row.mark ?? 0),
      }
    );
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined> {
    checkLeaseArgs(lease.owner, ttlMs);
    const expiresAt = this.clock.now() + ttlMs;
    const { rows } = await this.db.query<{ token: string }>(
      'renew a lease',
      lease,
      () => this.sql.renew,
      [keys.ownerPart(lease.userId), lease.sessionId, lease.owner, lease.token, expiresAt],
    );
    return rows.length === 1 ? { ...lease, expiresAt } : undefined;
  }

  /**
   * Gives the lease up; tells whether a message may wait in the session's inbox: one was there
   * at the grant, or one was queued while the lease was held (the row's count moved). A lease
   * taken over, or one this store did not grant, tells nothing.
   */
  async releaseLease(lease: SessionLease): Promise<LeaseReleased | undefined> {
    const { rows } = await this.db.query<{ queued: string }>(
      'release a lease',
      lease,
      () => this.sql.release,
      [keys.ownerPart(lease.userId), lease.sessionId, lease.owner, lease.token],
    );
    const row = rows[0];
    if (!row || lease.inboxMark === undefined) return undefined;
    return { queued: lease.queued === true || Number(row.queued) !== lease.inboxMark };
  }

  async expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]> {
    const limit = query.limit ?? DEFAULT_EXPIRED_LIMIT;
    const { rows } = await this.db.query<{ session_id: string }>(
      'list expired leases',
      {},
      () => this.sql.expired,
      [keys.ownerPart(query.userId), query.expiredBefore, limit],
    );
    return rows.map((row) => ({ sessionId: row.session_id, userId: query.userId }));
  }

  async leaseOf(key: SessionKey): Promise<StoredLease | undefined> {
    const now = this.clock.now();
    const { rows } = await this.db.query<{
      holder: string;
      token: string;
      expires_at: string;
      released: boolean;
    }>('read a lease', key, () => this.sql.leaseOf, [
      keys.ownerPart(key.userId),
      checkedSessionId(key),
    ]);
    const row = rows[0];
    return (
      row && {
        ...keyOf(key),
        owner: row.holder,
        token: Number(row.token),
        expiresAt: Number(row.expires_at),
        released: row.released,
        expired: Number(row.expires_at) <= now,
      }
    );
  }
}
