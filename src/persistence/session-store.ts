import type { Item } from '../items/item.js';
import type { UsageTotals } from '../machines/session-types.js';
import type { AuditEntry, AuditPage, AuditQuery } from './audit-log.js';

export type SessionStatus = 'active' | 'suspended' | 'completed' | 'failed' | 'deleted';

// Usage totals are part of the (pure) session machine's context; persistence stores them.
export { emptyTotals, type UsageTotals } from '../machines/session-types.js';

/**
 * Identifies a session. `userId` is part of the key, not a filter: the same sessionId under
 * two users is two unrelated sessions, and `undefined` is the anonymous bucket.
 */
export interface SessionKey {
  sessionId: string;
  userId?: string | undefined;
}

/** What listing returns for each session: the record without its snapshot. */
export interface SessionInfo {
  sessionId: string;
  userId: string | undefined;
  version: number;
  status: SessionStatus;
  createdAt: number;
  updatedAt: number;
  parentId: string | undefined;
  /** Number of items in the session's append-only history log. */
  historyLength: number;
  usage: UsageTotals;
  /**
   * The earliest deadline (epoch ms) of an approval the session's run waits for, if any. The
   * store keeps an index of it, written in the same batch as the record (see `dueApprovals`).
   */
  approvalDeadline?: number | undefined;
}

/** A stored session: info plus the persisted session-machine snapshot (plain JSON). */
export interface SessionRecord extends SessionInfo {
  /** Version of the machine definitions that produced `snapshot`. */
  machineVersion: string;
  snapshot: unknown;
}

/** A journaled step result, keyed by (sessionId, runId, step). */
export interface JournalEntry {
  runId: string;
  step: number;
  kind: 'model' | 'tool' | 'approval' | 'guardrail';
  /** Plain-JSON output of the step, replayed instead of running the step again. */
  output: unknown;
  /** Epoch milliseconds the step ended (its result was recorded). */
  at: number;
  /**
   * Epoch milliseconds the step first started (before any restart). Absent in entries written
   * before agentstate recorded it.
   */
  startedAt?: number | undefined;
  /**
   * How many times the step ran again because it was in flight when its process stopped (a
   * crash) and a restored run started it anew. Absent: never.
   */
  restarts?: number | undefined;
}

/**
 * Everything one step writes, applied as one atomic batch: the record (whose `version` must
 * equal the stored one), the items appended to history, journal entries and the user's usage.
 */
export interface SessionCommit {
  record: SessionRecord;
  /** Appended at positions `[stored.historyLength, record.historyLength)`. */
  items: Item[];
  journal: JournalEntry[];
  /** Added to the owner's per-user totals in the same batch. */
  userUsageDelta?: UsageTotals | undefined;
  /**
   * Fencing: the lease the writer holds. A store that keeps leases applies the commit only if
   * this lease (owner and token) is still the session's current one; a lease taken over by
   * another owner makes the save throw `LeaseLostError` and write nothing. Omitted: no lease
   * check (the version check alone decides).
   */
  lease?: SessionLease | undefined;
  /**
   * Audit entries of this step (session actions, tool calls, permission decisions, approvals),
   * written in the same atomic batch under their owner's partition.
   */
  audit?: readonly AuditEntry[] | undefined;
}

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
}

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
  /** Gives the lease up (ends it now) if still held; a lease taken over is left alone. */
  releaseLease(lease: SessionLease): Promise<void>;
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

/** Whether `store` keeps leases. */
export function hasLeases(store: SessionStore): store is SessionStore & SessionLeases {
  return hasMethods(store, ['acquireLease', 'renewLease', 'releaseLease', 'expiredLeases']);
}

function hasMethods(store: SessionStore, names: readonly string[]): boolean {
  return names.every(
    (name) => typeof (store as unknown as Record<string, unknown>)[name] === 'function',
  );
}

/** A session loaded for an action that may write: the record and its owner's totals. */
export interface LoadedSession {
  record: SessionRecord;
  /** The owner's totals across sessions, validated before the action does anything. */
  userUsage: UsageTotals;
}

export interface ListSessionsQuery {
  /** The partition to list; omitted means the anonymous bucket. */
  userId?: string | undefined;
  status?: SessionStatus | undefined;
  /** @default 50 */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
}

export interface SessionPage {
  sessions: SessionInfo[];
  nextCursor: string | undefined;
}

/** An entry of a store's approval-deadline index: a session whose run waits for an approval. */
export interface DeadlineEntry {
  key: SessionKey;
  /** Epoch milliseconds. */
  deadline: number;
  /** The index key, the cursor to continue a scan after this entry. */
  indexKey: string;
}

export interface DueApprovalsQuery {
  /** Entries with a deadline at or before this time (epoch ms) are due. */
  until: number;
  /** Continue after this index key (the `cursor` of a previous scan). */
  after?: string | undefined;
  /** Entries read at most (due and damaged ones). */
  limit: number;
}

/** One page of the approval-deadline index, in deadline order. */
export interface DueApprovals {
  due: DeadlineEntry[];
  /** Index entries that failed their check (`InvalidSessionRecordError` naming the key). */
  damaged: Error[];
  /** Set when the page is full: pass it as `after` for the rest of the due entries. */
  cursor: string | undefined;
  /** The earliest deadline after `until` (known when `cursor` is undefined). */
  next: number | undefined;
}

/** Approval decisions recorded for a run, for whichever process continues it. */
export interface DecisionSubmission {
  key: SessionKey;
  /** The run they were made on (the session's run when submitted). */
  runId: string;
  /** Plain-JSON decisions (`ApprovalDecision`s, checked by the runtime). */
  decisions: unknown[];
  /** Epoch milliseconds. */
  at: number;
}

/** A submission waiting in a store's decision inbox. */
export interface SubmittedDecisions extends DecisionSubmission {
  /** Its place in the inbox (submission order). */
  id: string;
}

/** A live subscription to a store's decision inbox (`watchDecisions`). */
export interface DecisionWatch {
  /** Ends the subscription (and its connection). */
  close(): Promise<void>;
}

/**
 * The decision inbox of a store shared by processes: decisions submitted in one process are
 * applied by another (`agent.submitDecisions`, the scheduler applies them). Optional.
 */
export interface DecisionInbox {
  /** Records a submission and notifies watchers, in one atomic write. */
  submitDecisions(submission: DecisionSubmission): Promise<void>;
  /**
   * The oldest submissions (`limit` rows at most), every owner, each checked against its key:
   * a damaged one is in `damaged` (`InvalidSessionRecordError`), never applied.
   */
  submittedDecisions(query: {
    limit: number;
  }): Promise<{ submitted: SubmittedDecisions[]; damaged: Error[] }>;
  /** Removes a submission once it was applied (or found stale). */
  dropDecisions(entry: SubmittedDecisions): Promise<void>;
  /**
   * Calls `onSubmitted` after each submission (in any process) until closed; `onLost` once if
   * the subscription breaks (watch again to resume). Rejects if it cannot subscribe.
   */
  watchDecisions(onSubmitted: () => void, onLost: (error: unknown) => void): Promise<DecisionWatch>;
}

/** Whether `store` keeps a decision inbox. */
export function hasDecisionInbox(store: SessionStore): store is SessionStore & DecisionInbox {
  const names = ['submitDecisions', 'submittedDecisions', 'dropDecisions', 'watchDecisions'];
  return hasMethods(store, names);
}

/** Bytes and batches written since the store was opened (for benchmarks and tests). */
export interface StoreStats {
  batches: number;
  bytesWritten: number;
}

/**
 * Where sessions live. Every method is scoped by `SessionKey.userId`; a session of another
 * user behaves exactly like a missing one. The full contract (what each method guarantees,
 * what a custom store must do) is in `STORE-CONTRACT.md` beside this file; the contract test
 * suite checks it for every store shipped. A store may also implement {@link SessionLeases}.
 */
export interface SessionStore extends Partial<SessionLeases>, Partial<DecisionInbox> {
  /** Stores version 1. Throws `SessionConflictError` if the key exists. */
  create(
    record: Omit<SessionRecord, 'version'>,
    items?: Item[],
    audit?: readonly AuditEntry[],
  ): Promise<SessionRecord>;
  /**
   * The record, with its seal, schema and listing entry checked. Throws `SessionNotFoundError`,
   * `InvalidSessionRecordError`, `UnsupportedSchemaVersionError`.
   */
  load(key: SessionKey): Promise<SessionRecord>;
  /**
   * `load` plus the owner's totals, all checked, in one read: what an action needs first.
   * `known` is a record this store returned for `key` earlier (from `create`, `save` or a
   * load): while the stored record is still exactly the value that record was read from or
   * written as, a store may return `known` itself (the same object, its listing entry still
   * checked) instead of decoding and checking the record again. Any other stored value (another
   * writer's save, a purge, damage) is read and checked as without `known`. A store may ignore it.
   */
  loadForUpdate(key: SessionKey, known?: SessionRecord): Promise<LoadedSession>;
  /**
   * Writes one step atomically (all of it or nothing): needs `commit.record.version` to match
   * the stored version (else `SessionConflictError`, also when the stored session is a
   * tombstone, status `deleted`: a late write never revives a deleted session), the items to
   * start at the stored `historyLength`, and the commit's lease (if any) to be current (else
   * `LeaseLostError`). Returns the record at version + 1.
   */
  save(commit: SessionCommit): Promise<SessionRecord>;
  /**
   * History items `[from, to)`; `to` defaults to the record's `historyLength`. Every position
   * must be there: a missing, moved or damaged item throws `InvalidSessionRecordError`.
   */
  readHistory(key: SessionKey, from?: number, to?: number): Promise<Item[]>;
  readJournal(key: SessionKey, runId: string, step: number): Promise<JournalEntry | undefined>;
  /** Every journal entry of one run, ordered by step, each checked against its key. */
  readRunJournal(key: SessionKey, runId: string): Promise<JournalEntry[]>;
  list(query?: ListSessionsQuery): Promise<SessionPage>;
  /** Per-user totals over all of that user's sessions. */
  userUsage(userId: string | undefined): Promise<UsageTotals>;
  /**
   * Removes the session, its history, journal and index entries; its audit entries stay, and
   * `audit` (the purge's own entry) is written in the same batch.
   */
  purge(key: SessionKey, audit?: readonly AuditEntry[]): Promise<void>;
  /**
   * A page of one user's audit entries in time order (optionally of one session, of some
   * kinds, in a time range `[from, to)`). Every entry is checked against its key; a damaged one
   * is `InvalidSessionRecordError` naming the key.
   */
  readAudit(query: AuditQuery): Promise<AuditPage>;
  /**
   * Due entries of the approval-deadline index, every one checked against its key (stores
   * without such an index leave this out; the scheduler needs it).
   */
  dueApprovals?(query: DueApprovalsQuery): Promise<DueApprovals>;
  /**
   * Deletes an index entry whose session no longer holds that deadline (record gone or another
   * deadline). Returns whether it was stale; an entry the record still holds stays.
   */
  dropStaleDeadline?(entry: DeadlineEntry): Promise<boolean>;
  stats(): StoreStats;
  close(): Promise<void>;
}
