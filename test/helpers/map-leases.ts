import type {
  ExpiredLeaseQuery,
  SessionKey,
  SessionLease,
  StoredLease,
} from 'agentstate-runtime/store';
import { byMapKey, ownedBy, sessionMapKey } from './map-keys.js';

const DEFAULT_EXPIRED_LIMIT = 100;

/** A lease as the table keeps it. */
export interface LeaseRow extends SessionLease {
  released: boolean;
}

/**
 * The leases of a `MapSessionStore`: one writer per session, each new holder with a greater
 * token, expiry by the store's clock. Synchronous, so the store's writes check a lease and
 * write without an `await` in between.
 */
export class MapLeases {
  constructor(
    readonly rows: Map<string, LeaseRow>,
    private readonly clock: { now(): number },
  ) {}

  acquire(key: SessionKey, owner: string, ttlMs: number): SessionLease | undefined {
    checkLeaseArgs(owner, ttlMs);
    const id = sessionMapKey(key);
    const now = this.clock.now();
    const row = this.rows.get(id);
    const live = row !== undefined && !row.released && row.expiresAt > now;
    if (live && row.owner !== owner) return undefined;
    const lease: SessionLease = {
      sessionId: key.sessionId,
      userId: key.userId,
      owner,
      token: live ? row.token : (row?.token ?? 0) + 1,
      expiresAt: now + ttlMs,
    };
    this.rows.set(id, { ...lease, released: false });
    return lease;
  }

  renew(lease: SessionLease, ttlMs: number): SessionLease | undefined {
    checkLeaseArgs(lease.owner, ttlMs);
    const row = this.current(lease);
    if (!row) return undefined;
    row.expiresAt = this.clock.now() + ttlMs;
    const { released: _released, ...renewed } = row;
    return renewed;
  }

  release(lease: SessionLease): void {
    const row = this.current(lease);
    if (row) row.released = true;
  }

  expired(query: ExpiredLeaseQuery): SessionKey[] {
    return [...this.rows]
      .filter(
        ([id, row]) =>
          ownedBy(id, query.userId) && !row.released && row.expiresAt <= query.expiredBefore,
      )
      .sort(byMapKey)
      .slice(0, query.limit ?? DEFAULT_EXPIRED_LIMIT)
      .map(([, row]) => ({ sessionId: row.sessionId, userId: row.userId }));
  }

  leaseOf(key: SessionKey): StoredLease | undefined {
    const row = this.rows.get(sessionMapKey(key));
    return row && { ...row, expired: row.expiresAt <= this.clock.now() };
  }

  /** The row of `lease` while it is the session's current lease (same owner and token). */
  current(lease: SessionLease): LeaseRow | undefined {
    const row = this.rows.get(sessionMapKey(lease));
    return row && row.owner === lease.owner && row.token === lease.token && !row.released
      ? row
      : undefined;
  }

  drop(key: SessionKey): void {
    this.rows.delete(sessionMapKey(key));
  }
}

function checkLeaseArgs(owner: string, ttlMs: number): void {
  if (typeof owner !== 'string' || owner === '') {
    throw new TypeError('lease owner must be a non-empty string');
  }
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new TypeError(`lease ttlMs must be a positive integer, got ${ttlMs}`);
  }
}
