import type { Item } from '../items/item.js';
import type { UsageTotals } from '../machines/session-types.js';
import type { AuditEntry, AuditPage, AuditQuery } from './audit-log.js';
import type { DueApprovals, DueApprovalsQuery, DeadlineEntry } from './approval-deadlines.js';
import type { DecisionInbox } from './decision-inbox.js';
import type { ScheduleStore } from './schedule-store.js';
import type { MemoryStore } from './memory-store.js';
import type { MessageInbox } from './message-inbox.js';
import type { SessionLease, SessionLeases } from './session-leases.js';
import type { SessionWatches } from './session-watches.js';

export type SessionStatus = 'active' | 'suspended' | 'completed' | 'failed' | 'deleted';

/** The orders of `list({ order })` (`LIST_ORDERS`, `entries/list-order.ts`). */
export type ListOrder = 'id' | 'updated' | 'created' | 'usage';

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
  /**
   * Whether a call of the session's run (or of a sub-agent run it waits for) waits for a
   * human's decision: such sessions come first in every order of `list({ order })`.
   */
  awaitingApproval?: boolean | undefined;
  /**
   * Set on a hosted app machine's instance (`workflows()`): the workflow's name. Such records
   * share the store's parts (leases, inboxes, journal, deadline index) with sessions and are
   * listed apart (`ListSessionsQuery.kind`). Absent on a session.
   */
  workflow?: string | undefined;
}

/** A stored session: info plus the persisted session-machine snapshot (plain JSON). */
export interface SessionRecord extends SessionInfo {
  /** Version of the machine definitions that produced `snapshot`. */
  machineVersion: string;
  snapshot: unknown;
}

/** The kinds of journal entry (`JournalEntry.kind`). */
export type JournalKind = 'model' | 'tool' | 'approval' | 'guardrail' | 'event' | 'step';

/** A journaled step result, keyed by (sessionId, runId, step). */
export interface JournalEntry {
  runId: string;
  step: number;
  /**
   * The step's kind: a run's `model`, `tool`, `approval` or `guardrail` step, or a hosted app
   * machine's `event` (an event it took, with the state it reached) or `step` (a durable step's
   * outcome, `workflows()`).
   */
  kind: JournalKind;
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
  /**
   * How many times the step was tried again after it failed (a model call that failed
   * interrupts the run; resuming it calls the model again at the same step). Absent: never.
   */
  retries?: number | undefined;
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
  /**
   * Ids of the session's queued messages this step takes (`MessageInbox`): a store with a
   * message inbox removes them in the same atomic batch, so a message is in the inbox or in
   * the history, never both and never neither.
   */
  dequeued?: readonly string[] | undefined;
}

/**
 * A store's manifest of the optional capabilities it has (as abstract-level's `db.supports`):
 * `true` for each it claims; one left out (or `false`) is not claimed. What each capability's
 * methods are is `STORE_CONTRACT` (`store-supports.ts`); a store claims exactly
 * those whose methods it has (`checkStoreSupports` raises a `TypeError` otherwise).
 */
export interface StoreSupports {
  /** `SessionLeases`: one writer per session, fenced by token. */
  readonly leases?: boolean | undefined;
  /** `leaseOf`: a session's lease read back as held. */
  readonly leaseReads?: boolean | undefined;
  /** `dueApprovals` and `dropStaleDeadline`: the approval-deadline index. */
  readonly deadlineIndex?: boolean | undefined;
  /** `DecisionInbox`. */
  readonly decisionInbox?: boolean | undefined;
  /** `MessageInbox` (without `queuedSessions`). */
  readonly messageInbox?: boolean | undefined;
  /** `queuedSessions`. */
  readonly queuedSessions?: boolean | undefined;
  /** `SessionWatches`. */
  readonly sessionWatches?: boolean | undefined;
  /** `MemoryStore`: memory across sessions. */
  readonly memory?: boolean | undefined;
  /** `ScheduleStore`: schedules and their next-tick index. */
  readonly schedules?: boolean | undefined;
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
  /**
   * Which records: `'session'` (the default) lists sessions only, `'workflow'` the instances of
   * hosted app machines only (records with `workflow` set), each kind paged apart with its own
   * cursors; a page in an `order` reads its kind's own index. Another value is a `TypeError`.
   */
  kind?: 'session' | 'workflow' | undefined;
  status?: SessionStatus | undefined;
  /** @default 50 */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
  /**
   * The order across pages, from the store's index: the sessions awaiting an approval first,
   * then by id, latest update, latest creation or most tokens (`ListOrder`); the cursor of
   * one order is a `TypeError` in another. Omitted: by session id alone, as before orders.
   */
  order?: ListOrder | undefined;
}

export interface SessionPage {
  sessions: SessionInfo[];
  nextCursor: string | undefined;
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
 * suite checks it for every store shipped. Which methods are required and which make each
 * optional capability ({@link SessionLeases}, the deadline index, the inboxes, watches) is
 * `STORE_CONTRACT` (`store-supports.ts`); a store names the capabilities it has in `supports`.
 */
export interface SessionStore
  extends
    Partial<SessionLeases>,
    Partial<DecisionInbox>,
    Partial<MessageInbox>,
    Partial<SessionWatches>,
    Partial<MemoryStore>,
    Partial<ScheduleStore> {
  /**
   * The optional capabilities this store has (`StoreSupports`, as abstract-level's
   * `db.supports`): exactly those whose methods it has, checked when a runtime is handed the
   * store. Omitted (a store written before manifests): read from the methods it has.
   */
  readonly supports?: StoreSupports | undefined;
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
  /**
   * The journal entries of one run at steps `from` (default 0) and after, ordered by step,
   * each checked against its key (a reader that follows a run reads only what it has not had).
   * A `from` that is not a step (negative, not an integer) is a `TypeError`.
   */
  readRunJournal(key: SessionKey, runId: string, from?: number): Promise<JournalEntry[]>;
  list(query?: ListSessionsQuery): Promise<SessionPage>;
  /** Per-user totals over all of that user's sessions. */
  userUsage(userId: string | undefined): Promise<UsageTotals>;
  /**
   * Removes the session, its history, journal, queued messages and index entries; its audit entries stay, and
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
