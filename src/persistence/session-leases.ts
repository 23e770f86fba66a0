import type { SessionKey } from './session-store.js';

/**
 * The right of one owner (a process, a worker) to run a session's steps until `expiresAt`.
 * `token` grows by one with every new holder (never on a renewal), so a commit carrying an
 * older token is from an owner whose lease was taken over.
 */
export interface SessionLease {
  sessionId: string;
  userId: string | undefined;
  owner: string;
  token: number;
  /** Epoch milliseconds, from the store's clock. */
  expiresAt: number;
  /**
   * Told by a store that keeps a message inbox and reads it in the statement granting the lease
   * (PostgreSQL): whether the session's inbox held a message then (a new message lets those go
   * first). Omitted: not told (the runtime reads the inbox).
   */
  queued?: boolean | undefined;
  /** The inbox's mark at the grant, the store's own (handed back to `releaseLease`). */
  inboxMark?: number | undefined;
}

/**
 * What `releaseLease` may tell (a store that keeps a message inbox and reads it in that
 * statement): whether a message may wait in the session's inbox for a run to take, one that
 * was there at the grant or was queued while the lease was held.
 */
export type LeaseReleased = { queued: boolean } | undefined;

/** What a lease-keeping store finds when asked for runs whose owner stopped renewing. */
export interface ExpiredLeaseQuery {
  /** The partition to search; omitted means the anonymous bucket. */
  userId?: string | undefined;
  /** Leases that expired at or before this time (epoch milliseconds). */
  expiredBefore: number;
  /** @default 100 */
  limit?: number | undefined;
}

/**
 * Leases: one writer per session. Optional: a store without them serves one process, where
 * the runtime's in-process guard is enough.
 */
export interface SessionLeases {
  /**
   * Takes the session's lease for `owner` for `ttlMs`: granted when there is none, when it
   * expired, or when `owner` already holds it (then renewed, same token). Returns `undefined`
   * while another owner holds a live lease. Does not need the session to exist.
   */
  acquireLease(key: SessionKey, owner: string, ttlMs: number): Promise<SessionLease | undefined>;
  /** Extends a lease still held (same owner and token); `undefined` once it was taken over. */
  renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined>;
  /**
   * Gives the lease up (ends it now) if still held; a lease taken over is left alone. May
   * resolve `{ queued }` (`LeaseReleased`): then the runtime reads the session's inbox after
   * the run only when it is true. Resolving nothing: it reads it (a store shared by processes).
   */
  releaseLease(lease: SessionLease): Promise<void | LeaseReleased>;
  /**
   * Sessions of one user whose lease expired without being released (their owner died or hung),
   * ordered by session id: the candidates for recovery.
   */
  expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]>;
  /**
   * The session's lease as the store holds it, also an expired or released one; `undefined`
   * when it holds none. Optional: how `SessionRuntime.getSession` tells a run whose process
   * stopped (`crashed`) from one that is running.
   */
  leaseOf?(key: SessionKey): Promise<StoredLease | undefined>;
  /**
   * True when the leases live in this process's memory (a store one process holds, such as
   * LevelDB's folder lock): a stored run no lease of this process covers was left by an
   * earlier process, which is gone.
   */
  readonly leasesInProcess?: boolean | undefined;
}

/** A lease as the store holds it: current, expired or given up. */
export interface StoredLease extends SessionLease {
  /** Given up by its owner (`releaseLease`). */
  released: boolean;
  /** Past `expiresAt` by the store's clock (not renewed in time). */
  expired: boolean;
}
