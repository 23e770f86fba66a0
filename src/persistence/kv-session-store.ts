import { Item } from '../items/item.js';
import {
  InvalidSessionRecordError,
  SessionConflictError,
  SessionNotFoundError,
  SessionSaveFailedError,
} from '../errors/session-errors.js';
import { getAll, type KvBackend, type KvOp } from './kv-backend.js';
import type { Migration } from './migrations.js';
import { SessionRecordCodec } from './session-record-codec.js';
import * as keys from './session-keys.js';
import {
  JournalEntrySchema,
  SessionInfoSchema,
  UsageTotalsSchema,
  checkBeforeWrite,
  decodeStored,
  toJournalEntry,
  toSessionInfo,
  toUsageTotals,
} from './session-schemas.js';
import {
  emptyTotals,
  type JournalEntry,
  type ListSessionsQuery,
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
 * batch per save, userId as a hard key partition, schema-versioned records. Writes are
 * serialized in process, so each check-then-write is atomic (LevelDB allows one process per
 * folder). Reads never write.
 */
export class KvSessionStore implements SessionStore {
  /** The raw key-value backend (exposed for tests and tools; see `session-keys.ts`). */
  readonly backend: KvBackend;
  protected readonly codec: SessionRecordCodec;
  private writes: Promise<unknown> = Promise.resolve();

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
    const ops = [
      put(recordKey, this.codec.encode(record)),
      put(keys.listIndexKey(key), JSON.stringify(toSessionInfo(record))),
      put(keys.ownerMarkerKey(key.userId), '1'),
      ...this.historyOps(key, 0, items),
    ];
    return this.serialized(async () => {
      if ((await this.backend.get(recordKey)) !== undefined) {
        throw new SessionConflictError(record.sessionId, 0, undefined);
      }
      await this.apply(record.sessionId, ops);
      return record;
    });
  }

  async load(key: SessionKey): Promise<SessionRecord> {
    const recordKey = keys.recordKey(key);
    const raw = await this.backend.get(recordKey);
    if (raw === undefined) throw new SessionNotFoundError(key.sessionId);
    return this.decodeRecord(key, recordKey, raw);
  }

  async save(commit: SessionCommit): Promise<SessionRecord> {
    const { record: next, items, journal, userUsageDelta } = commit;
    const key = keyOf(next);
    const recordKey = keys.recordKey(key);
    const totalsKey = keys.userTotalsKey(key.userId);
    const journalOps = journal.map((entry) => {
      const checked = checkBeforeWrite('journal entry', entry, JournalEntrySchema);
      return put(keys.journalKey(key, checked.runId, checked.step), JSON.stringify(checked));
    });
    const delta =
      userUsageDelta && checkBeforeWrite('usage delta', userUsageDelta, UsageTotalsSchema);
    return this.serialized(async () => {
      // The version check reads back keys this process wrote last (hot): synchronously if it can.
      const [raw, rawTotals] =
        this.backend.getManySync?.([recordKey, totalsKey]) ??
        (await getAll(this.backend, [recordKey, totalsKey]));
      if (raw === undefined) throw new SessionNotFoundError(key.sessionId);
      const stored = this.decodeRecord(key, recordKey, raw);
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
      const ops = [
        put(recordKey, this.codec.encode(saved)),
        put(keys.listIndexKey(key), JSON.stringify(toSessionInfo(saved))),
        ...this.historyOps(key, stored.historyLength, items),
        ...journalOps,
      ];
      if (delta) {
        const totals =
          rawTotals === undefined ? emptyTotals() : this.decodeTotals(totalsKey, rawTotals);
        ops.push(put(totalsKey, JSON.stringify(addTotals(totals, toUsageTotals(delta)))));
      }
      await this.apply(key.sessionId, ops);
      return saved;
    });
  }

  async readHistory(key: SessionKey, from = 0, to?: number): Promise<Item[]> {
    checkIndex(from, 'from');
    if (to !== undefined) {
      checkIndex(to, 'to');
      if (to <= from) return [];
    }
    const items: Item[] = [];
    for await (const [itemKey, value] of this.backend.iterate(keys.historyRange(key, from, to))) {
      items.push(decodeStored(itemKey, value, Item, { sessionId: key.sessionId }));
    }
    return items;
  }

  async readJournal(
    key: SessionKey,
    runId: string,
    step: number,
  ): Promise<JournalEntry | undefined> {
    const entryKey = keys.journalKey(key, runId, step);
    const raw = await this.backend.get(entryKey);
    if (raw === undefined) return undefined;
    const entry = decodeStored(entryKey, raw, JournalEntrySchema, {
      sessionId: key.sessionId,
      runId,
    });
    if (entry.runId !== runId || entry.step !== step) {
      throw new InvalidSessionRecordError(entryKey, 'entry does not match its key', { runId });
    }
    return toJournalEntry(entry);
  }

  async list(query: ListSessionsQuery = {}): Promise<SessionPage> {
    const { userId, status, cursor } = query;
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new TypeError(`list: limit must be a positive integer, got ${limit}`);
    }
    if (userId === undefined) await this.warnIfNamedOwners();
    const range = keys.listIndexRange(userId);
    const gte =
      cursor === undefined
        ? range.gte
        : keys.keyAfter(keys.listIndexKey({ sessionId: cursor, userId }));
    const sessions: SessionPage['sessions'] = [];
    let more = false;
    const scanLimit = status === undefined ? limit + 1 : undefined;
    for await (const [indexKey, value] of this.backend.iterate({
      gte,
      lt: range.lt,
      limit: scanLimit,
    })) {
      const info = toSessionInfo(decodeStored(indexKey, value, SessionInfoSchema));
      if (info.userId !== userId) {
        throw new InvalidSessionRecordError(indexKey, 'entry does not belong to its owner');
      }
      if (status !== undefined && info.status !== status) continue;
      if (sessions.length === limit) {
        more = true;
        break;
      }
      sessions.push(info);
    }
    return { sessions, nextCursor: more ? sessions[sessions.length - 1]?.sessionId : undefined };
  }

  async userUsage(userId: string | undefined): Promise<UsageTotals> {
    const totalsKey = keys.userTotalsKey(userId);
    const raw = await this.backend.get(totalsKey);
    return raw === undefined ? emptyTotals() : this.decodeTotals(totalsKey, raw);
  }

  async purge(key: SessionKey): Promise<void> {
    const recordKey = keys.recordKey(key);
    await this.serialized(async () => {
      // Existence only: a corrupt record can still be purged.
      if ((await this.backend.get(recordKey)) === undefined) {
        throw new SessionNotFoundError(key.sessionId);
      }
      const ops = [del(recordKey), del(keys.listIndexKey(key))];
      for (const range of [keys.historyRange(key), keys.journalRange(key)]) {
        for await (const [entryKey] of this.backend.iterate(range)) ops.push(del(entryKey));
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

  private historyOps(key: SessionKey, start: number, items: readonly Item[]): KvOp[] {
    return items.map((item, i) =>
      put(
        keys.historyKey(key, start + i),
        JSON.stringify(checkBeforeWrite('history item', item, Item)),
      ),
    );
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

  private decodeTotals(totalsKey: string, raw: string): UsageTotals {
    return toUsageTotals(decodeStored(totalsKey, raw, UsageTotalsSchema));
  }

  private async warnIfNamedOwners(): Promise<void> {
    for await (const _ of this.backend.iterate({ ...keys.namedOwnersRange(), limit: 1 })) {
      process.emitWarning(
        'agentstate: sessions were queried without a userId, which only reaches the anonymous ' +
          'bucket, but this store holds sessions of named users. Pass userId to query a user.',
        { type: 'IsolationWarning', code: 'AGENTSTATE_ISOLATION' },
      );
      return;
    }
  }

  private async apply(sessionId: string, ops: KvOp[]): Promise<void> {
    try {
      await this.backend.write(ops);
    } catch (error) {
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
