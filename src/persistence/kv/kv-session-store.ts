/* eslint-disable max-lines -- Long on purpose: one class implementing one contract, the
 * SessionStore over a key-value backend; each method is one atomic batch of the store, read as a
 * whole. Its parts live apart: leases, sub-run parts, the deadline index, audit entries, owner
 * totals, listing scans, the encoded entries, the write queue and the caches (`written-cache.ts`,
 * a layer it consults; `cache: false` leaves it plain).
 */
import { LiveRunCancels } from '../run-cancels.js';
import { SessionWatchers } from '../session-watches.js';
import { Item } from '../../items/item.js';
import { AgentStateError } from '../../errors/agentstate-error.js';
import {
  SessionConflictError,
  SessionNotFoundError,
  SessionSaveFailedError,
} from '../../errors/session-errors.js';
import { type AuditEntry, type AuditPage, type AuditQuery } from '../audit-log.js';
import { auditOps, scanAudit } from './kv-audit.js';
import { deadlineOps, purgedDeadlineOps, scanDueDeadlines } from './deadline-index.js';
import { getAll, type KvBackend, type KvOp } from './backends/kv-backend.js';
import type { KvRange } from '../key-range.js';
import { readHistoryRange } from './kv-history-range.js';
import { KvMessageInbox } from './kv-message-inbox.js';
import type { MessageInbox } from '../message-inbox.js';
import { KvMemory } from './kv-memory.js';
import type { MemoryStore } from '../memory-store.js';
import { KvSchedules } from './kv-schedules.js';
import type { ScheduleStore } from '../schedule-store.js';
import { bindCapability } from '../capability-methods.js';
import { scanListing } from './listing-scan.js';
import {
  buildOrderIndexOps,
  orderKeys,
  orderIndexIsWhole,
  orderMarkerOp,
  orderOps,
  ownerIsNew,
  purgedOrderOps,
  scanOrder,
} from './order-index.js';
import { checkListOrder } from '../entries/list-order.js';
import { checkListKind } from '../entries/list-kind.js';
import { warnIsolation } from '../isolation-warning.js';
import { checkAppend, checkCreateItems, historyEnd, listLimit } from '../store-args.js';
import { encodedHistory, encodedListing, type EncodedEntry } from '../entries/encoded-entries.js';
import { WriteQueue } from './write-queue.js';
import { addTotals, hasNamedOwners, readOwnerTotals } from './owner-totals.js';
import { SessionRecordCodec } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import { encodeStored, toUsageTotals } from '../session-schemas.js';
import { checkedListing, decodeJournalAt } from '../stored-reads.js';
import { encodeRecord, type StoredRecord } from './record-changes.js';
import {
  checkedRecordWithChanges,
  decodeRecordWithChanges,
  orphanChanges,
  storedRecordOf,
} from './record-changes-reads.js';
import { joinSubRuns, partOps, splitSubRuns, storedPartIds } from './sub-run-parts.js';
import { InProcessLeases, systemLeaseClock } from '../lease-table.js';
import type { KvSessionStoreOptions } from './kv-store-options.js';
import { NO_CACHE, WrittenCache, type StoreCache } from './written-cache.js';
import {
  emptyTotals,
  type JournalEntry,
  type ListSessionsQuery,
  type LoadedSession,
  type SessionCommit,
  type SessionKey,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoreStats,
  type UsageTotals,
} from '../session-store.js';
import type { DeadlineEntry, DueApprovals, DueApprovalsQuery } from '../approval-deadlines.js';
import type {
  ExpiredLeaseQuery,
  SessionLease,
  SessionLeases,
  StoredLease,
} from '../session-leases.js';
import { usageDeltaBeforeWrite } from '../checked-writes.js';
import type { StoreSupports } from '../session-store.js';

export type { KvSessionStoreOptions };

const put = (key: string, value: string): KvOp => ({ type: 'put', key, value });
const del = (key: string): KvOp => ({ type: 'del', key });
const putEntry = (entry: EncodedEntry): KvOp => put(entry.key, entry.value);

/** The error of a write of `sessionId` whose batch failed (typed ones, e.g. a locked store, as is). */
const writeFailed =
  (sessionId: string) =>
  (error: unknown): unknown =>
    error instanceof AgentStateError ? error : new SessionSaveFailedError(sessionId, error);

/**
 * The session store logic over any ordered {@link KvBackend}: optimistic versions, each save
 * all in one atomic batch, userId as a hard key partition, schema-versioned records. Every value is
 * sealed with a checksum of its key and bytes and checked on read, with the history log's
 * positions, the listing index and the owner's totals, so damage is a typed error naming the
 * key, never different data. Writes are checked one at a time in process, so each check-then-write
 * is atomic (LevelDB allows one process per folder); the saves that wait while a batch is
 * written are checked in turn and written together as the next batch (see `WriteQueue`).
 * Reads never write.
 */
export class KvSessionStore implements SessionStore, SessionLeases {
  /** The raw key-value backend (exposed for tests and tools; see `session-keys.ts`). */
  readonly backend: KvBackend;
  protected readonly codec: SessionRecordCodec;
  /** Leases live in process: one process holds a key-value backend. */
  private readonly leases: InProcessLeases;
  readonly leasesInProcess = true;
  /** The optional parts of the contract it keeps: all but the decision inbox (one process). */
  readonly supports = {
    leases: true,
    leaseReads: true,
    deadlineIndex: true,
    decisionInbox: false,
    messageInbox: true,
    queuedSessions: true,
    sessionWatches: true,
    memory: true,
    schedules: true,
  } as const satisfies StoreSupports;
  /** The runs executing in this process on this store, which `agent.cancel` reaches. */
  readonly runCancels = new LiveRunCancels();
  /** Who follows a session's saves (`watchSession`): only this process writes the backend. */
  private readonly watchers = new SessionWatchers();
  /** Each write's check, in call order; the writes that arrive during a batch share the next. */
  private readonly writes: WriteQueue;
  /** The performance caches over the backend's values (`written-cache.ts`); none: plain. */
  private readonly cache: StoreCache;
  private readonly recordChanges: boolean;
  /** Test-only: saves skip their lease check (`unsafeSkipFencing`). */
  private readonly skipFencing: boolean;
  // The message inbox, memory across sessions and schedules are kept by classes of their own,
  // on this store's write queue, their methods put on the store by `bindCapability` (declared
  // here for TypeScript).
  declare readonly queueMessage: MessageInbox['queueMessage'];
  declare readonly queuedMessages: MessageInbox['queuedMessages'];
  declare readonly dropQueuedMessage: MessageInbox['dropQueuedMessage'];
  declare readonly queuedSessions: NonNullable<MessageInbox['queuedSessions']>;
  declare readonly putMemories: MemoryStore['putMemories'];
  declare readonly searchMemories: MemoryStore['searchMemories'];
  declare readonly listMemories: MemoryStore['listMemories'];
  declare readonly getMemories: MemoryStore['getMemories'];
  declare readonly deleteMemories: MemoryStore['deleteMemories'];
  declare readonly readWorkingMemory: MemoryStore['readWorkingMemory'];
  declare readonly writeWorkingMemory: MemoryStore['writeWorkingMemory'];
  declare readonly forgetMemories: MemoryStore['forgetMemories'];
  declare readonly memoryResources: MemoryStore['memoryResources'];
  declare readonly createSchedule: ScheduleStore['createSchedule'];
  declare readonly getSchedule: ScheduleStore['getSchedule'];
  declare readonly listSchedules: ScheduleStore['listSchedules'];
  declare readonly saveSchedule: ScheduleStore['saveSchedule'];
  declare readonly deleteSchedule: ScheduleStore['deleteSchedule'];
  declare readonly dueSchedules: ScheduleStore['dueSchedules'];

  constructor(backend: KvBackend, options: KvSessionStoreOptions = {}) {
    this.backend = backend;
    this.codec = new SessionRecordCodec({ migrations: options.migrations });
    this.writes = new WriteQueue(backend, options.groupLimits);
    this.leases = new InProcessLeases(options.clock ?? systemLeaseClock, (change, sessionId) =>
      this.writes.run(async () => {
        const result = change();
        return { ops: [], written: () => result };
      }, writeFailed(sessionId)),
    );
    this.cache = options.cache === false ? NO_CACHE : new WrittenCache();
    // Changes are written against the whole record last written, which the cache keeps.
    this.recordChanges = (options.recordChanges ?? false) && options.cache !== false;
    this.skipFencing = options.unsafeSkipFencing === true;
    const inbox = new KvMessageInbox(backend, this.writes, writeFailed);
    bindCapability(this, 'messageInbox', inbox);
    bindCapability(this, 'queuedSessions', inbox);
    bindCapability(this, 'memory', new KvMemory(backend, this.writes));
    bindCapability(this, 'schedules', new KvSchedules(backend, this.writes));
  }

  async create(
    input: Omit<SessionRecord, 'version'>,
    items: Item[] = [],
    audit?: readonly AuditEntry[],
  ): Promise<SessionRecord> {
    const record: SessionRecord = { ...input, version: 1 };
    checkCreateItems(record, items);
    const key = keys.encodedKey(record);
    const recordKey = keys.recordKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    const { slim, parts } = splitSubRuns(record.snapshot);
    const listing = encodedListing(record, key);
    const envelope = this.codec.envelope({ ...record, snapshot: slim });
    const encoded = encodeRecord(key, envelope, undefined, listing.json);
    const stored = partOps(key, parts, new Map());
    const ops = [
      encoded.put,
      // Changes left without their record (damage) would not fit the new one: gone with it.
      del(keys.recordChangesKey(key)),
      putEntry(listing),
      ...encodedHistory(key, 0, items).map(putEntry),
      ...deadlineOps(key, undefined, record.approvalDeadline),
      ...orderOps(record.sessionId, [], orderKeys(key, record)),
      ...stored.ops,
      ...auditOps(audit),
    ];
    return this.writes.run(async (view) => {
      const [existing, rawTotals] = await getAll(view, [recordKey, totalsKey]);
      if (existing !== undefined) throw new SessionConflictError(record.sessionId, 0, undefined);
      // Checked before writing: a damaged totals record fails the create, not a later save.
      await readOwnerTotals(view, key.userId, rawTotals);
      const totals = rawTotals === undefined ? emptyTotals() : undefined;
      const encodedTotals = totals && encodeStored(totalsKey, totals);
      // An owner's first session: their list-order index is whole from the start.
      const first = totals !== undefined && (await ownerIsNew(view, key.userId));
      return {
        ops: [
          ...ops,
          ...(encodedTotals ? [put(totalsKey, encodedTotals)] : []),
          ...(first ? [orderMarkerOp(key.userId)] : []),
        ],
        written: () => {
          this.cache.remember(recordKey, encoded.stored, record, stored.raws, listing.value);
          if (totals && encodedTotals) this.cache.rememberTotals(totalsKey, encodedTotals, totals);
          return record;
        },
      };
    }, writeFailed(record.sessionId));
  }

  async load(sessionKey: SessionKey): Promise<SessionRecord> {
    const key = keys.encodedKey(sessionKey);
    const read = [keys.recordKey(key), keys.listIndexKey(key), keys.recordChangesKey(key)];
    const [raw, rawIndex, changes] = await getAll(this.backend, read);
    const record = checkedRecordWithChanges(this.codec, key, raw, changes, rawIndex);
    return this.withSubRuns(key, { raw: raw!, changes }, record);
  }

  async loadForUpdate(sessionKey: SessionKey, known?: SessionRecord): Promise<LoadedSession> {
    const key = keys.encodedKey(sessionKey);
    const read = [
      keys.recordKey(key),
      keys.listIndexKey(key),
      keys.userTotalsKey(key.userId),
      keys.recordChangesKey(key),
    ];
    const [raw, rawIndex, rawTotals, changes] =
      (known && this.backend.getManySync?.(read)) ?? (await getAll(this.backend, read));
    // A record this store handed out for the stored values (no sub-run parts) is read hot, sync;
    // with the listing entry the store wrote with it, that needs no check against it either.
    const written = raw === undefined ? undefined : this.cache.record(read[0]!, raw);
    const isKnown = known !== undefined && written?.handed === known && written.changes === changes;
    const listed = isKnown && written?.listing === rawIndex;
    const record =
      known && isKnown
        ? listed && rawIndex !== undefined
          ? known
          : checkedListing(key, known, rawIndex)
        : await this.withSubRuns(
            key,
            { raw: raw!, changes },
            checkedRecordWithChanges(this.codec, key, raw, changes, rawIndex),
          );
    // The owner's totals as this store last wrote them, when those are the stored bytes (a copy:
    // the caller may keep it); else read and checked.
    const totals = this.cache.totals(read[2]!, rawTotals);
    const userUsage = totals
      ? { ...totals }
      : await readOwnerTotals(this.backend, key.userId, rawTotals);
    return { record, userUsage };
  }

  async save(commit: SessionCommit): Promise<SessionRecord> {
    const { record: next, items, journal, userUsageDelta } = commit;
    const key = keys.encodedKey(next);
    const recordKey = keys.recordKey(key);
    const changesKey = keys.recordChangesKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    // Journal entries are the runtime's own (typed); each is checked when read back.
    const journalOps = journal.map((entry) => {
      const entryKey = keys.journalKey(key, entry.runId, entry.step);
      return put(entryKey, encodeStored(entryKey, entry));
    });
    const delta = userUsageDelta && usageDeltaBeforeWrite(userUsageDelta);
    const audited = auditOps(commit.audit);
    // Everything but the version check is encoded before the write queue, so that encoding
    // overlaps the batch being written: a save that passes the check stores exactly this.
    const start = next.historyLength - items.length;
    if (start < 0) checkAppend(0, items.length, next.historyLength);
    const saved: SessionRecord = { ...next, version: next.version + 1 };
    const { slim, parts } = splitSubRuns(saved.snapshot);
    const envelope = this.codec.envelope(
      slim === saved.snapshot ? saved : { ...saved, snapshot: slim },
    );
    // Written as changes against the whole record this store last wrote, if it still is the
    // stored one (checked in the queue: else encoded again, against what is stored).
    const assumed = this.recordChanges ? this.cache.lastBase(recordKey) : undefined;
    const listing = encodedListing(saved, key);
    let encoded = encodeRecord(key, envelope, assumed, listing.json);
    const entryOps = [
      putEntry(listing),
      ...encodedHistory(key, start, items).map(putEntry),
      ...journalOps,
    ];
    return this.writes.run(async (view) => {
      // The version check reads back keys this process wrote last (hot): synchronously if it can.
      // It reads through `view`: a save of the same group before it is seen as written.
      const read = delta ? [recordKey, changesKey, totalsKey] : [recordKey, changesKey];
      const [raw, changes, rawTotals] = view.getManySync?.(read) ?? (await getAll(view, read));
      if (raw === undefined) {
        throw changes === undefined ? new SessionNotFoundError(key.sessionId) : orphanChanges(key);
      }
      const written = this.cache.record(recordKey, raw);
      const known = written?.changes === changes ? written : undefined;
      const stored = known ?? decodeRecordWithChanges(this.codec, key, raw, changes);
      // A writer whose lease was taken over learns that first (fencing), whatever its version.
      if (commit.lease && !this.skipFencing) this.leases.table.check(commit.lease, key);
      if (stored.version !== next.version) {
        // A record behind the caller's may have lost its changes: its listing entry tells.
        if (!known && stored.version < next.version) {
          const rawIndex = await view.get(keys.listIndexKey(key));
          checkedRecordWithChanges(this.codec, key, raw, changes, rawIndex);
        }
        throw new SessionConflictError(key.sessionId, next.version, stored.version);
      }
      if (stored.status === 'deleted') {
        throw new SessionConflictError(key.sessionId, next.version, stored.version, true);
      }
      checkAppend(stored.historyLength, items.length, next.historyLength);
      // Only the sub-agent runs that changed are written (a child's step leaves its ancestors').
      const storedParts = known ? known.parts : await storedPartIds(view, key);
      const partWrites = partOps(key, parts, storedParts);
      const base = this.recordChanges ? known?.base : undefined;
      if (encoded.put.key !== recordKey && base !== assumed) {
        encoded = encodeRecord(key, envelope, base, listing.json);
      }
      const whole = encoded.put.key === recordKey;
      const ops = [
        encoded.put,
        // A whole record replaces the changes stored against the one before.
        ...(whole && changes !== undefined ? [del(changesKey)] : []),
        ...partWrites.ops,
        ...entryOps,
        // The deadline index moves with the record, in the same batch (never out of step).
        ...deadlineOps(key, stored.approvalDeadline, saved.approvalDeadline),
        // So do its list-order entries (those whose position changed).
        ...orderOps(
          key.sessionId,
          'order' in stored ? stored.order : orderKeys(key, stored),
          orderKeys(key, saved),
        ),
        ...audited,
        // The queued messages this step takes leave the inbox with it.
        ...(commit.dequeued ?? []).map((id) => del(keys.messageKey(key, id))),
      ];
      let totals: { value: UsageTotals; raw: string } | undefined;
      if (delta) {
        const before =
          this.cache.totals(totalsKey, rawTotals) ??
          (await readOwnerTotals(view, key.userId, rawTotals));
        const value = addTotals(before, toUsageTotals(delta));
        totals = { value, raw: encodeStored(totalsKey, value) };
        ops.push(put(totalsKey, totals.raw));
      }
      return {
        ops,
        // What the store remembers of its writes changes only once they are written.
        written: () => {
          this.cache.remember(recordKey, encoded.stored, saved, partWrites.raws, listing.value);
          if (totals) this.cache.rememberTotals(totalsKey, totals.raw, totals.value);
          if (this.watchers.watched) this.watchers.changed(keys.sessionPart(key));
          return saved;
        },
      };
    }, writeFailed(key.sessionId));
  }

  async readHistory(key: SessionKey, from = 0, to?: number): Promise<Item[]> {
    const end = await historyEnd(from, to, async () => (await this.load(key)).historyLength);
    if (end === undefined) return [];
    return readHistoryRange(this.backend, key, from, end);
  }

  async readJournal(
    key: SessionKey,
    runId: string,
    step: number,
  ): Promise<JournalEntry | undefined> {
    const entryKey = keys.journalKey(key, runId, step);
    const raw = await this.backend.get(entryKey);
    return raw === undefined ? undefined : decodeJournalAt(key, raw, runId, step);
  }

  async readRunJournal(key: SessionKey, runId: string, from = 0): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    const range = { ...keys.runJournalRange(key, runId), gte: keys.journalKey(key, runId, from) };
    for await (const [entryKey, raw] of this.backend.iterate(range)) {
      entries.push(decodeJournalAt(key, raw, runId, keys.journalStepOf(entryKey)));
    }
    return entries;
  }

  async list(query: ListSessionsQuery = {}): Promise<SessionPage> {
    const limit = listLimit(query);
    const kind = checkListKind(query.kind);
    if (query.userId === undefined && (await hasNamedOwners(this.backend))) warnIsolation();
    if (query.order !== undefined) {
      const order = checkListOrder(query.order, query.cursor);
      await this.wholeOrderIndex(query.userId);
      const { userId, status, cursor } = query;
      return scanOrder(this.backend, { userId, kind, status, cursor, order, limit });
    }
    return scanListing(this.backend, {
      userId: query.userId,
      kind,
      status: query.status,
      limit,
      cursor: query.cursor,
      wholeIndex: () => this.wholeOrderIndex(query.userId),
    });
  }

  async dueApprovals(query: DueApprovalsQuery): Promise<DueApprovals> {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
      throw new TypeError(`dueApprovals: limit must be a positive integer, got ${query.limit}`);
    }
    return scanDueDeadlines(this.backend, query);
  }

  async dropStaleDeadline(entry: DeadlineEntry): Promise<boolean> {
    const recordKey = keys.recordKey(entry.key);
    return this.writes.run(async (view) => {
      const [raw, changes] = await getAll(view, [recordKey, keys.recordChangesKey(entry.key)]);
      const held = storedRecordOf(this.codec, entry.key, raw, changes)?.approvalDeadline;
      if (held === entry.deadline) return { ops: [], written: () => false };
      return { ops: [del(keys.deadlineKey(entry.key, entry.deadline))], written: () => true };
    }, writeFailed(entry.key.sessionId));
  }

  readAudit(query: AuditQuery): Promise<AuditPage> {
    return scanAudit(this.backend, query);
  }

  async userUsage(userId: string | undefined): Promise<UsageTotals> {
    const raw = await this.backend.get(keys.userTotalsKey(userId));
    return readOwnerTotals(this.backend, userId, raw);
  }

  async purge(key: SessionKey, audit?: readonly AuditEntry[]): Promise<void> {
    const recordKey = keys.recordKey(key);
    const audited = auditOps(audit);
    /** Where the session's keys were: compacted once deleted, so its bytes leave the disk. */
    const erased: KvRange[] = [];
    await this.writes.run(async (view) => {
      // Existence only: a corrupt record can still be purged.
      const changesKey = keys.recordChangesKey(key);
      const [raw, changes] = await getAll(view, [recordKey, changesKey]);
      if (raw === undefined && changes === undefined) {
        throw new SessionNotFoundError(key.sessionId);
      }
      const ops = [
        del(recordKey),
        del(changesKey),
        del(keys.listIndexKey(key)),
        ...purgedDeadlineOps(key, () => storedRecordOf(this.codec, key, raw, changes)),
        ...(await purgedOrderOps(view, key, () => storedRecordOf(this.codec, key, raw, changes))),
      ];
      const ranges = [
        keys.historyRange(key),
        keys.journalRange(key),
        keys.subRunRange(key),
        keys.messageRange(key),
      ];
      erased.push(...ops.map((op) => ({ gte: op.key, lt: op.key })), ...ranges);
      for (const range of ranges) {
        for await (const entryKey of view.keys(range)) ops.push(del(entryKey));
      }
      // The session's audit entries outlive it; the purge is recorded with it.
      ops.push(...audited);
      // Its lease goes once it is written: a lease call queued after it waits for that.
      const written = () => {
        this.leases.table.drop(key);
        if (this.watchers.watched) this.watchers.changed(keys.sessionPart(key));
      };
      return { ops, written, endsGroup: true };
    }, writeFailed(key.sessionId));
    await this.backend.compact?.(erased);
  }

  // The leases are kept by their own class (methods here, so that a subclass can wrap them).
  async acquireLease(
    key: SessionKey,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    return this.leases.acquireLease(key, owner, ttlMs);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined> {
    return this.leases.renewLease(lease, ttlMs);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    return this.leases.releaseLease(lease);
  }

  async expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]> {
    return this.leases.expiredLeases(query);
  }

  async leaseOf(key: SessionKey): Promise<StoredLease | undefined> {
    return this.leases.leaseOf(key);
  }

  /** Hears this store's saves of the session (one process holds a key-value backend). */
  watchSession(
    key: SessionKey,
    onChange: () => void,
    onLost: (error: unknown) => void,
  ): Promise<() => Promise<void>> {
    const stop = this.watchers.add(keys.sessionPart(key), onChange, onLost);
    return Promise.resolve(() => Promise.resolve(stop()));
  }

  stats(): StoreStats {
    return this.backend.stats();
  }

  /** Waits for queued writes, then closes the backend. */
  async close(): Promise<void> {
    await this.writes.idle();
    await this.backend.close();
  }

  /**
   * Files an owner's sessions in the list-order index once, if the store was written before the
   * index (no marker): one batch through the write queue, so no save of theirs goes between.
   */
  private async wholeOrderIndex(userId: string | undefined): Promise<void> {
    if (await orderIndexIsWhole(this.backend, userId)) return;
    await this.writes.run(async (view) => {
      const ops = await buildOrderIndexOps(view, userId);
      return { ops, written: () => undefined, endsGroup: true };
    }, writeFailed(''));
  }

  /** A loaded (slim) record with its stored sub-agent runs put back into its snapshot. */
  private async withSubRuns(
    key: SessionKey,
    stored: Omit<StoredRecord, 'base'>,
    record: SessionRecord,
  ): Promise<SessionRecord> {
    const { snapshot, raws } = await joinSubRuns(this.backend, key, record.snapshot);
    const joined = snapshot === record.snapshot ? record : { ...record, snapshot };
    this.cache.remember(keys.recordKey(key), stored, joined, raws);
    return joined;
  }
}
