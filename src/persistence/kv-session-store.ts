import { Item } from '../items/item.js';
import { AgentStateError } from '../errors/agentstate-error.js';
import {
  InvalidSessionRecordError,
  SessionConflictError,
  SessionNotFoundError,
  SessionSaveFailedError,
} from '../errors/session-errors.js';
import { deadlineOps, scanDueDeadlines } from './deadline-index.js';
import { getAll, type KvBackend, type KvOp } from './kv-backend.js';
import { readHistoryRange } from './history-reader.js';
import { scanListing } from './listing-scan.js';
import type { Migration } from './migrations.js';
import { hasNamedOwners, readOwnerTotals } from './owner-totals.js';
import { holdsJson } from './sealed-value.js';
import { SessionRecordCodec } from './session-record-codec.js';
import * as keys from './session-keys.js';
import {
  JournalEntrySchema,
  SessionInfoSchema,
  UsageTotalsSchema,
  checkBeforeWrite,
  decodeStored,
  encodeStored,
  toJournalEntry,
  toSessionInfo,
  toUsageTotals,
} from './session-schemas.js';
import {
  emptyTotals,
  type DeadlineEntry,
  type DueApprovals,
  type DueApprovalsQuery,
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
} from './session-store.js';

export interface KvSessionStoreOptions {
  /** Upgrade steps for records written with an older schema version. */
  migrations?: readonly Migration[] | undefined;
}

const DEFAULT_LIST_LIMIT = 50;
/** Sessions whose last written record a store remembers for its version check. */
const WRITTEN_CAPACITY = 1000;
const put = (key: string, value: string): KvOp => ({ type: 'put', key, value });
const del = (key: string): KvOp => ({ type: 'del', key });
const keyOf = (record: SessionKey): SessionKey => ({
  sessionId: record.sessionId,
  userId: record.userId,
});

function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    turns: a.turns + b.turns,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

function checkIndex(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${what} must be a non-negative integer, got ${value}`);
  }
}

/**
 * The session store logic over any ordered {@link KvBackend}: optimistic versions, one atomic
 * batch per save, userId as a hard key partition, schema-versioned records. Every value is
 * sealed with a checksum of its key and bytes and checked on read, with the history log's
 * positions, the listing index and the owner's totals, so damage is a typed error naming the
 * key, never different data. Writes are serialized in process, so each check-then-write is
 * atomic (LevelDB allows one process per folder). Reads never write.
 */
export class KvSessionStore implements SessionStore {
  /** The raw key-value backend (exposed for tests and tools; see `session-keys.ts`). */
  readonly backend: KvBackend;
  protected readonly codec: SessionRecordCodec;
  private writes: Promise<unknown> = Promise.resolve();
  /**
   * The last record value this store wrote per key (bounded): a save whose stored value is
   * still exactly those bytes needs no decode for its version check.
   */
  private readonly written = new Map<
    string,
    { raw: string; version: number; historyLength: number; approvalDeadline: number | undefined }
  >();

  constructor(backend: KvBackend, options: KvSessionStoreOptions = {}) {
    this.backend = backend;
    this.codec = new SessionRecordCodec({ migrations: options.migrations });
  }

  async create(input: Omit<SessionRecord, 'version'>, items: Item[] = []): Promise<SessionRecord> {
    const record: SessionRecord = { ...input, version: 1 };
    if (record.historyLength !== items.length) {
      throw new TypeError(
        `create: historyLength is ${record.historyLength} but ${items.length} items were given`,
      );
    }
    const key = keyOf(record);
    const recordKey = keys.recordKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    const encoded = this.codec.encode(recordKey, record);
    const ops = [
      put(recordKey, encoded),
      this.listingOp(record),
      ...this.historyOps(key, 0, items),
      ...deadlineOps(key, undefined, record.approvalDeadline),
    ];
    return this.serialized(async () => {
      const [existing, rawTotals] = await getAll(this.backend, [recordKey, totalsKey]);
      if (existing !== undefined) throw new SessionConflictError(record.sessionId, 0, undefined);
      // Checked before writing: a damaged totals record fails the create, not a later save.
      await readOwnerTotals(this.backend, key.userId, rawTotals);
      if (rawTotals === undefined) ops.push(put(totalsKey, encodeStored(totalsKey, emptyTotals())));
      await this.apply(record.sessionId, ops);
      this.remember(recordKey, encoded, record);
      return record;
    });
  }

  async load(key: SessionKey): Promise<SessionRecord> {
    const recordKey = keys.recordKey(key);
    const indexKey = keys.listIndexKey(key);
    const [raw, rawIndex] = await getAll(this.backend, [recordKey, indexKey]);
    return this.checkedRecord(key, raw, rawIndex);
  }

  async loadForUpdate(key: SessionKey): Promise<LoadedSession> {
    const recordKey = keys.recordKey(key);
    const indexKey = keys.listIndexKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    const [raw, rawIndex, rawTotals] = await getAll(this.backend, [recordKey, indexKey, totalsKey]);
    const record = this.checkedRecord(key, raw, rawIndex);
    return { record, userUsage: await readOwnerTotals(this.backend, key.userId, rawTotals) };
  }

  async save(commit: SessionCommit): Promise<SessionRecord> {
    const { record: next, items, journal, userUsageDelta } = commit;
    const key = keyOf(next);
    const recordKey = keys.recordKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    const journalOps = journal.map((entry) => {
      const checked = checkBeforeWrite('journal entry', entry, JournalEntrySchema);
      const entryKey = keys.journalKey(key, checked.runId, checked.step);
      return put(entryKey, encodeStored(entryKey, checked));
    });
    const delta =
      userUsageDelta && checkBeforeWrite('usage delta', userUsageDelta, UsageTotalsSchema);
    return this.serialized(async () => {
      // The version check reads back keys this process wrote last (hot): synchronously if it can.
      const [raw, rawTotals] =
        this.backend.getManySync?.([recordKey, totalsKey]) ??
        (await getAll(this.backend, [recordKey, totalsKey]));
      if (raw === undefined) throw new SessionNotFoundError(key.sessionId);
      const known = this.written.get(recordKey);
      const stored = known?.raw === raw ? known : this.decodeRecord(key, recordKey, raw);
      if (stored.version !== next.version) {
        throw new SessionConflictError(key.sessionId, next.version, stored.version);
      }
      if (stored.historyLength + items.length !== next.historyLength) {
        throw new TypeError(
          `save: stored historyLength ${stored.historyLength} + ${items.length} new items ` +
            `!== record.historyLength ${next.historyLength}`,
        );
      }
      const saved: SessionRecord = { ...next, version: stored.version + 1 };
      const encoded = this.codec.encode(recordKey, saved);
      const ops = [
        put(recordKey, encoded),
        this.listingOp(saved),
        ...this.historyOps(key, stored.historyLength, items),
        ...journalOps,
        // The deadline index moves with the record, in the same batch (never out of step).
        ...deadlineOps(key, stored.approvalDeadline, saved.approvalDeadline),
      ];
      if (delta) {
        const totals = await readOwnerTotals(this.backend, key.userId, rawTotals);
        ops.push(put(totalsKey, encodeStored(totalsKey, addTotals(totals, toUsageTotals(delta)))));
      }
      await this.apply(key.sessionId, ops);
      this.remember(recordKey, encoded, saved);
      return saved;
    });
  }

  async readHistory(key: SessionKey, from = 0, to?: number): Promise<Item[]> {
    checkIndex(from, 'from');
    if (to !== undefined) checkIndex(to, 'to');
    const end = to ?? (await this.load(key)).historyLength;
    if (end <= from) return [];
    return readHistoryRange(this.backend, key, from, end);
  }

  async readJournal(
    key: SessionKey,
    runId: string,
    step: number,
  ): Promise<JournalEntry | undefined> {
    const entryKey = keys.journalKey(key, runId, step);
    const raw = await this.backend.get(entryKey);
    return raw === undefined ? undefined : this.decodeJournal(key, entryKey, raw, runId, step);
  }

  async readRunJournal(key: SessionKey, runId: string): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    for await (const [entryKey, raw] of this.backend.iterate(keys.runJournalRange(key, runId))) {
      entries.push(this.decodeJournal(key, entryKey, raw, runId, keys.journalStepOf(entryKey)));
    }
    return entries;
  }

  async list(query: ListSessionsQuery = {}): Promise<SessionPage> {
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new TypeError(`list: limit must be a positive integer, got ${limit}`);
    }
    if (query.userId === undefined) await this.warnIfNamedOwners();
    return scanListing(this.backend, {
      userId: query.userId,
      status: query.status,
      limit,
      cursor: query.cursor,
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
    return this.serialized(async () => {
      const raw = await this.backend.get(recordKey);
      const held =
        raw === undefined
          ? undefined
          : this.decodeRecord(entry.key, recordKey, raw).approvalDeadline;
      if (held === entry.deadline) return false;
      await this.apply(entry.key.sessionId, [del(keys.deadlineKey(entry.key, entry.deadline))]);
      return true;
    });
  }

  async userUsage(userId: string | undefined): Promise<UsageTotals> {
    const raw = await this.backend.get(keys.userTotalsKey(userId));
    return readOwnerTotals(this.backend, userId, raw);
  }

  async purge(key: SessionKey): Promise<void> {
    const recordKey = keys.recordKey(key);
    await this.serialized(async () => {
      // Existence only: a corrupt record can still be purged.
      const raw = await this.backend.get(recordKey);
      if (raw === undefined) {
        throw new SessionNotFoundError(key.sessionId);
      }
      const ops = [del(recordKey), del(keys.listIndexKey(key)), ...this.deadlineDrop(key, raw)];
      for (const range of [keys.historyRange(key), keys.journalRange(key)]) {
        for await (const entryKey of this.backend.keys(range)) ops.push(del(entryKey));
      }
      await this.apply(key.sessionId, ops);
    });
  }

  stats(): StoreStats {
    return this.backend.stats();
  }

  /** Waits for queued writes, then closes the backend. */
  async close(): Promise<void> {
    await this.writes;
    await this.backend.close();
  }

  /**
   * The op deleting a purged session's deadline index entry. The entry of a record too damaged
   * to read stays: the scheduler finds it stale (no record) and drops it.
   */
  private deadlineDrop(key: SessionKey, raw: string): KvOp[] {
    try {
      return deadlineOps(
        key,
        this.decodeRecord(key, keys.recordKey(key), raw).approvalDeadline,
        undefined,
      );
    } catch {
      return [];
    }
  }

  private remember(recordKey: string, raw: string, record: SessionRecord): void {
    this.written.delete(recordKey);
    this.written.set(recordKey, {
      raw,
      version: record.version,
      historyLength: record.historyLength,
      approvalDeadline: record.approvalDeadline,
    });
    if (this.written.size > WRITTEN_CAPACITY) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
  }

  private historyOps(key: SessionKey, start: number, items: readonly Item[]): KvOp[] {
    return items.map((item, i) => {
      const itemKey = keys.historyKey(key, start + i);
      return put(itemKey, encodeStored(itemKey, checkBeforeWrite('history item', item, Item)));
    });
  }

  private listingOp(record: SessionRecord): KvOp {
    const indexKey = keys.listIndexKey(record);
    return put(indexKey, encodeStored(indexKey, toSessionInfo(record)));
  }

  /**
   * A loaded record, checked with its listing entry: both must exist and agree (the entry is
   * rewritten with every save, so it must be exactly what this record would write, or the
   * unsealed form agentstate 0.1 wrote).
   */
  private checkedRecord(
    key: SessionKey,
    raw: string | undefined,
    rawIndex: string | undefined,
  ): SessionRecord {
    const recordKey = keys.recordKey(key);
    const indexKey = keys.listIndexKey(key);
    const scope = { sessionId: key.sessionId };
    if (raw === undefined) {
      if (rawIndex === undefined) throw new SessionNotFoundError(key.sessionId);
      throw new InvalidSessionRecordError(
        recordKey,
        'the session record is missing but its listing entry exists',
        scope,
      );
    }
    const record = this.decodeRecord(key, recordKey, raw);
    if (rawIndex === undefined) {
      throw new InvalidSessionRecordError(
        indexKey,
        'the listing entry is missing but the session record exists',
        scope,
      );
    }
    if (!holdsJson(rawIndex, JSON.stringify(toSessionInfo(record)))) {
      // Decoding names what is wrong with a damaged entry; a well-formed one disagrees.
      decodeStored(indexKey, rawIndex, SessionInfoSchema, scope);
      throw new InvalidSessionRecordError(
        indexKey,
        'the listing entry disagrees with the record',
        scope,
      );
    }
    return record;
  }

  private decodeRecord(key: SessionKey, recordKey: string, raw: string): SessionRecord {
    const record = this.codec.decode(recordKey, raw);
    if (record.sessionId !== key.sessionId || record.userId !== key.userId) {
      throw new InvalidSessionRecordError(recordKey, 'record does not match its key', {
        sessionId: key.sessionId,
      });
    }
    return record;
  }

  private decodeJournal(
    key: SessionKey,
    entryKey: string,
    raw: string,
    runId: string,
    step: number,
  ): JournalEntry {
    const scope = { sessionId: key.sessionId, runId };
    const entry = decodeStored(entryKey, raw, JournalEntrySchema, scope);
    if (entry.runId !== runId || entry.step !== step) {
      throw new InvalidSessionRecordError(entryKey, 'entry does not match its key', scope);
    }
    return toJournalEntry(entry);
  }

  private async warnIfNamedOwners(): Promise<void> {
    if (await hasNamedOwners(this.backend)) {
      process.emitWarning(
        'agentstate: sessions were queried without a userId, which only reaches the anonymous ' +
          'bucket, but this store holds sessions of named users. Pass userId to query a user.',
        { type: 'IsolationWarning', code: 'AGENTSTATE_ISOLATION' },
      );
    }
  }

  private async apply(sessionId: string, ops: KvOp[]): Promise<void> {
    try {
      await this.backend.write(ops);
    } catch (error) {
      if (error instanceof AgentStateError) throw error; // e.g. the store is locked
      throw new SessionSaveFailedError(sessionId, error);
    }
  }

  /** Runs write tasks one at a time, in call order. */
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.writes.then(task);
    this.writes = result.catch(() => undefined);
    return result;
  }
}
