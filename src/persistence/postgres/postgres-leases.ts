import { checkLeaseArgs, type LeaseClock } from '../lease-table.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import type {
  ExpiredLeaseQuery,
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

/**
 * Session leases in PostgreSQL, shared by every process on the database: owner, fencing token
 * and expiry (by the store's clock) per session; an expired lease can be taken over.
 */
export class PostgresLeases implements SessionLeases {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly clock: LeaseClock,
  ) {}

  async acquireLease(
    key: SessionKey,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    checkLeaseArgs(owner, ttlMs);
    const now = this.clock.now();
    const { rows } = await this.db.query<{ token: string; expires_at: string }>(
      'acquire a lease',
      key,
      () => this.db.sql.acquireLease(),
      [keys.ownerPart(key.userId), checkedSessionId(key), owner, now, now + ttlMs],
    );
    const row = rows[0];
    return (
      row && { ...keyOf(key), owner, token: Number(row.token), expiresAt: Number(row.expires_at) }
    );
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined> {
    checkLeaseArgs(lease.owner, ttlMs);
    const expiresAt = this.clock.now() + ttlMs;
    const { rows } = await this.db.query<{ token: string }>(
      'renew a lease',
      lease,
      () => this.db.sql.renewLease(),
      [keys.ownerPart(lease.userId), lease.sessionId, lease.owner, lease.token, expiresAt],
    );
    return rows.length === 1 ? { ...lease, expiresAt } : undefined;
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    await this.db.query('release a lease', lease, () => this.db.sql.releaseLease(), [
      keys.ownerPart(lease.userId),
      lease.sessionId,
      lease.owner,
      lease.token,
    ]);
  }

  async expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]> {
    const limit = query.limit ?? DEFAULT_EXPIRED_LIMIT;
    const { rows } = await this.db.query<{ session_id: string }>(
      'list expired leases',
      {},
      () => this.db.sql.expiredLeases(),
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
    }>('read a lease', key, () => this.db.sql.leaseOf(), [
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
