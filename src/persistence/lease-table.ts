import { LeaseLostError } from '../errors/session-errors.js';
import { ownerPart, sessionPart } from './session-keys.js';
import type { SessionKey } from './session-store.js';
import type {
  ExpiredLeaseQuery,
  SessionLease,
  SessionLeases,
  StoredLease,
} from './session-leases.js';

const DEFAULT_EXPIRED_LIMIT = 100;

/** Where lease expiry times come from (the runtime's `Clock` is one). */
export interface LeaseClock {
  now(): number;
}

/** The system time. */
export const systemLeaseClock: LeaseClock = { now: () => Date.now() };

interface LeaseRow {
  key: SessionKey;
  owner: string;
  token: number;
  expiresAt: number;
  released: boolean;
}

/** Checks the arguments every lease-keeping store takes (programmer errors are `TypeError`). */
export function checkLeaseArgs(owner: string, ttlMs: number): void {
  if (typeof owner !== 'string' || owner.length === 0) {
    throw new TypeError('lease owner must be a non-empty string');
  }
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new TypeError(`lease ttlMs must be a positive integer, got ${ttlMs}`);
  }
}

/**
 * Session leases kept in process, for the stores one process holds (memory, LevelDB): the
 * same API and fencing as a shared database's, with expiry from the injected clock. Tokens
 * grow per session for the life of the table.
 */
export class LeaseTable {
  private readonly rows = new Map<string, LeaseRow>();

  constructor(private readonly clock: LeaseClock) {}

  acquire(key: SessionKey, owner: string, ttlMs: number): SessionLease | undefined {
    checkLeaseArgs(owner, ttlMs);
    const id = sessionPart(key);
    const now = this.clock.now();
    const row = this.rows.get(id);
    if (row && !row.released && row.expiresAt > now && row.owner !== owner) return undefined;
    const same = row !== undefined && !row.released && row.owner === owner && row.expiresAt > now;
    const next: LeaseRow = {
      key: { sessionId: key.sessionId, userId: key.userId },
      owner,
      token: same ? row.token : (row?.token ?? 0) + 1,
      expiresAt: now + ttlMs,
      released: false,
    };
    this.rows.set(id, next);
    return toLease(next);
  }

  renew(lease: SessionLease, ttlMs: number): SessionLease | undefined {
    checkLeaseArgs(lease.owner, ttlMs);
    const row = this.current(lease);
    if (!row) return undefined;
    row.expiresAt = this.clock.now() + ttlMs;
    return toLease(row);
  }

  release(lease: SessionLease): void {
    const row = this.current(lease);
    if (row) row.released = true;
  }

  /** Throws `LeaseLostError` unless `lease` is the session's current lease. */
  /**
   * Throws `LeaseLostError` unless `lease` is still held. `session` may name the lease's session
   * with its part already encoded (`encodedKey`: a save's fencing check); another is ignored.
   */
  check(lease: SessionLease, session: SessionKey = lease): void {
    const same = session.sessionId === lease.sessionId && session.userId === lease.userId;
    if (!this.current(lease, same ? session : lease)) {
      throw new LeaseLostError(lease.sessionId, lease.owner);
    }
  }

  expired(query: ExpiredLeaseQuery): SessionKey[] {
    const owner = ownerPart(query.userId);
    const found = [...this.rows.entries()]
      .filter(
        ([id, row]) =>
          id.startsWith(`${owner}!`) && !row.released && row.expiresAt <= query.expiredBefore,
      )
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, row]) => row.key);
    return found.slice(0, query.limit ?? DEFAULT_EXPIRED_LIMIT);
  }

  /** The session's lease row, also an expired or released one (none: never leased here). */
  leaseOf(key: SessionKey): StoredLease | undefined {
    const row = this.rows.get(sessionPart(key));
    return (
      row && {
        ...toLease(row),
        released: row.released,
        expired: row.expiresAt <= this.clock.now(),
      }
    );
  }

  /** Forgets a purged session's lease. */
  drop(key: SessionKey): void {
    this.rows.delete(sessionPart(key));
  }

  private current(lease: SessionLease, session: SessionKey = lease): LeaseRow | undefined {
    const row = this.rows.get(sessionPart(session));
    return row && row.owner === lease.owner && row.token === lease.token && !row.released
      ? row
      : undefined;
  }
}

function toLease(row: LeaseRow): SessionLease {
  return {
    sessionId: row.key.sessionId,
    userId: row.key.userId,
    owner: row.owner,
    token: row.token,
    expiresAt: row.expiresAt,
  };
}

/**
 * Runs a lease change in turn with the store's writes (a key-value store's write queue), so
 * that a save's fencing check sees the leases as its turn leaves them; `sessionId` names a
 * failure of the turn.
 */
export type LeaseTurn = <T>(change: () => T, sessionId: string) => Promise<T>;

/**
 * The `SessionLeases` of a store one process holds (the key-value stores): a {@link LeaseTable}
 * whose every change takes its turn with the store's writes.
 */
export class InProcessLeases implements SessionLeases {
  readonly leasesInProcess = true;
  /** The table itself, for the store's fencing check and purge, inside their own turns. */
  readonly table: LeaseTable;

  constructor(
    clock: LeaseClock,
    private readonly inTurn: LeaseTurn,
  ) {
    this.table = new LeaseTable(clock);
  }

  async acquireLease(
    key: SessionKey,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    return this.inTurn(() => this.table.acquire(key, owner, ttlMs), key.sessionId);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined> {
    return this.inTurn(() => this.table.renew(lease, ttlMs), lease.sessionId);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    return this.inTurn(() => this.table.release(lease), lease.sessionId);
  }

  async expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]> {
    return Promise.resolve(this.table.expired(query));
  }

  async leaseOf(key: SessionKey): Promise<StoredLease | undefined> {
    return Promise.resolve(this.table.leaseOf(key));
  }
}
