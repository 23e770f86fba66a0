import {
  LeaseLostError,
  SessionConflictError,
  SessionNotFoundError,
  type Item,
} from 'agentstate-runtime';
import {
  RecordCodecs,
  checkListKind,
  checkListOrder,
  emptyTotals,
  kindOf,
  listPosition,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type DeadlineEntry,
  type DecisionInbox,
  type DecisionSubmission,
  type DecisionWatch,
  type SubmittedDecisions,
  type DueApprovals,
  type DueApprovalsQuery,
  type ExpiredLeaseQuery,
  type JournalEntry,
  type ListSessionsQuery,
  type LoadedSession,
  type RecordMigration,
  type SessionCommit,
  type SessionKey,
  type SessionLease,
  type SessionLeases,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoreStats,
  type StoredLease,
  type StoreSupports,
  type UsageTotals,
} from 'agentstate-runtime/store';
import { byMapKey, ownedBy, ownerMapKey, sessionMapKey, sessionOfMapKey } from './map-keys.js';
import { MapAuditLog } from './map-audit-log.js';
import { MapDecisionInbox } from './map-decision-inbox.js';
import { positiveInteger } from './map-checks.js';
import { MapDeadlineIndex, type DeadlineRow } from './map-deadline-index.js';
import { MapLeases, type LeaseRow } from './map-leases.js';

/**
 * Over 300 lines: the contract's methods of one store, each short, side by side; its optional
 * parts (leases, audit log, deadline index, decision inbox) are files of their own (map-*.ts).
 *
 * A session store written the way a third party writes one (a Redis, SQLite or DynamoDB
 * store), from `agentstate` and `agentstate-runtime/store` only: every value kept as the text
 * `RecordCodecs` seals, in plain `Map`s standing for the tables. One process holds it; each
 * write checks and changes the maps without an `await` in between, so it is atomic.
 */

export interface MapSessionStoreOptions {
  /** Where lease times come from. @default the system clock */
  clock?: { now(): number } | undefined;
  migrations?: readonly RecordMigration[] | undefined;
}

/** What the maps hold: each value as the text its codec wrote. */
export interface MapTables {
  /** Session key (`sessionMapKey`) -> the sealed record. */
  records: Map<string, string>;
  /** Session key -> the sealed items, by position. */
  history: Map<string, string[]>;
  /** Session key -> `runId` -> step -> the sealed journal entry. */
  journal: Map<string, Map<string, Map<number, string>>>;
  /** Owner (`ownerMapKey`) -> usage totals. */
  totals: Map<string, UsageTotals>;
  /** Owner -> audit key -> the sealed entry. */
  audit: Map<string, Map<string, string>>;
  /** Deadline index key -> the session waiting. */
  deadlines: Map<string, DeadlineRow>;
  leases: Map<string, LeaseRow>;
  /** Submission id -> the decisions submitted. */
  inbox: Map<string, SubmittedDecisions>;
}

const DEFAULT_LIST_LIMIT = 50;

/** Adds USD amounts to twelve significant digits (0.1 + 0.2 is 0.3). */
const addUsd = (a: number, b: number): number => Number((a + b).toPrecision(12));

const addTotals = (a: UsageTotals, b: UsageTotals): UsageTotals => ({
  turns: a.turns + b.turns,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  costUsd: addUsd(a.costUsd, b.costUsd),
});

export class MapSessionStore implements SessionStore, SessionLeases, DecisionInbox {
  readonly tables: MapTables = {
    records: new Map(),
    history: new Map(),
    journal: new Map(),
    totals: new Map(),
    audit: new Map(),
    deadlines: new Map(),
    leases: new Map(),
    inbox: new Map(),
  };
  readonly leasesInProcess = true;
  /** Its optional parts: leases, the deadline index and the decision inbox; no message inbox. */
  readonly supports = {
    leases: true,
    leaseReads: true,
    deadlineIndex: true,
    decisionInbox: true,
    messageInbox: false,
    queuedSessions: false,
    sessionWatches: false,
  } as const satisfies StoreSupports;
  private readonly codecs: RecordCodecs;
  private readonly leases: MapLeases;
  private readonly inbox: MapDecisionInbox;
  private readonly audit: MapAuditLog;
  private readonly deadlines: MapDeadlineIndex;
  private written: StoreStats = { batches: 0, bytesWritten: 0 };
  private closed = false;

  constructor(options: MapSessionStoreOptions = {}) {
    this.codecs = new RecordCodecs({ migrations: options.migrations });
    this.audit = new MapAuditLog(this.tables.audit, this.codecs);
    this.deadlines = new MapDeadlineIndex(this.tables.deadlines);
    this.inbox = new MapDecisionInbox(this.tables.inbox);
    this.leases = new MapLeases(this.tables.leases, options.clock ?? { now: () => Date.now() });
  }

  async create(
    record: Omit<SessionRecord, 'version'>,
    items: Item[] = [],
    audit: readonly AuditEntry[] = [],
  ): Promise<SessionRecord> {
    this.checkOpen();
    if (record.historyLength !== items.length) {
      throw new TypeError(
        `create: historyLength is ${record.historyLength} but ${items.length} items were given`,
      );
    }
    const created: SessionRecord = { ...record, version: 1 };
    const id = sessionMapKey(created);
    const text = this.encodeRecord(created);
    const history = items.map((item, i) => this.codecs.encodeItem(created, i, item));
    const audited = this.audit.encode(audit);
    if (this.tables.records.has(id)) throw new SessionConflictError(record.sessionId, 0, undefined);
    this.tables.records.set(id, text);
    this.tables.history.set(id, history);
    this.deadlines.move(created, undefined, created.approvalDeadline);
    this.audit.write(audited);
    this.count(text, ...history, ...audited.map((a) => a.text));
    return created;
  }

  async load(key: SessionKey): Promise<SessionRecord> {
    this.checkOpen();
    return this.stored(key);
  }

  async loadForUpdate(key: SessionKey): Promise<LoadedSession> {
    this.checkOpen();
    return { record: this.stored(key), userUsage: this.totalsOf(key.userId) };
  }

  async save(commit: SessionCommit): Promise<SessionRecord> {
    this.checkOpen();
    const { record, items, journal } = commit;
    const key = { sessionId: record.sessionId, userId: record.userId };
    const id = sessionMapKey(key);
    // Everything is encoded (and so checked) before anything is written.
    const saved: SessionRecord = { ...record, version: record.version + 1 };
    const text = this.encodeRecord(saved);
    const start = record.historyLength - items.length;
    const history = items.map((item, i) => this.codecs.encodeItem(key, start + i, item));
    const entries = journal.map((entry) => ({
      entry,
      text: this.codecs.encodeJournalEntry(key, entry),
    }));
    const delta = commit.userUsageDelta && this.codecs.checkUsageDelta(commit.userUsageDelta);
    const audited = this.audit.encode(commit.audit ?? []);
    // The checks against what is stored, then the write, with no await in between.
    const stored = this.stored(key);
    if (stored.version !== record.version || stored.status === 'deleted') {
      const deleted = stored.status === 'deleted';
      throw new SessionConflictError(key.sessionId, record.version, stored.version, deleted);
    }
    const storedHistory = this.tables.history.get(id) ?? [];
    if (start !== storedHistory.length) {
      throw new TypeError(
        `save: stored historyLength ${storedHistory.length} + ${items.length} new items ` +
          `!== record.historyLength ${record.historyLength}`,
      );
    }
    if (commit.lease && !this.leases.current(commit.lease)) {
      throw new LeaseLostError(key.sessionId, commit.lease.owner);
    }
    this.tables.records.set(id, text);
    this.tables.history.set(id, [...storedHistory, ...history]);
    const runs = this.tables.journal.get(id) ?? new Map<string, Map<number, string>>();
    for (const { entry, text: entryText } of entries) {
      const steps = runs.get(entry.runId) ?? new Map<number, string>();
      steps.set(entry.step, entryText);
      runs.set(entry.runId, steps);
    }
    this.tables.journal.set(id, runs);
    if (delta) {
      const owner = ownerMapKey(key.userId);
      this.tables.totals.set(owner, addTotals(this.totalsOf(key.userId), delta));
    }
    this.deadlines.move(key, stored.approvalDeadline, saved.approvalDeadline);
    this.audit.write(audited);
    this.count(text, ...history, ...entries.map((e) => e.text), ...audited.map((a) => a.text));
    return saved;
  }

  async readHistory(key: SessionKey, from = 0, to?: number): Promise<Item[]> {
    this.checkOpen();
    const record = this.stored(key);
    const end = to ?? record.historyLength;
    for (const [value, what] of [
      [from, 'from'],
      [end, 'to'],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new TypeError(`readHistory: ${what} must be a non-negative integer, got ${value}`);
      }
    }
    const texts = this.tables.history.get(sessionMapKey(key)) ?? [];
    const read: [number, string][] = [];
    for (let position = from; position < Math.min(end, texts.length); position++) {
      read.push([position, texts[position]!]);
    }
    return this.codecs.decodeHistory(key, from, end, read);
  }

  async readJournal(
    key: SessionKey,
    runId: string,
    step: number,
  ): Promise<JournalEntry | undefined> {
    this.checkOpen();
    const text = this.tables.journal.get(sessionMapKey(key))?.get(runId)?.get(step);
    return text === undefined ? undefined : this.codecs.decodeJournalEntry(key, runId, step, text);
  }

  async readRunJournal(key: SessionKey, runId: string, from = 0): Promise<JournalEntry[]> {
    this.checkOpen();
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new TypeError(`readRunJournal: from must be a step, got ${from}`);
    }
    const steps = this.tables.journal.get(sessionMapKey(key))?.get(runId);
    return [...(steps ?? [])]
      .filter(([step]) => step >= from)
      .sort(([a], [b]) => a - b)
      .map(([step, text]) => this.codecs.decodeJournalEntry(key, runId, step, text));
  }

  async list(query: ListSessionsQuery = {}): Promise<SessionPage> {
    this.checkOpen();
    const limit = positiveInteger(query.limit ?? DEFAULT_LIST_LIMIT, 'list: limit');
    const kind = checkListKind(query.kind);
    if (query.order !== undefined) return this.listInOrder(query, limit);
    const rows = [...this.tables.records]
      .filter(([id]) => ownedBy(id, query.userId) && (!query.cursor || id > query.cursor))
      .sort(byMapKey);
    const sessions: SessionPage['sessions'] = [];
    let last: string | undefined;
    for (const [id] of rows) {
      const key = sessionOfMapKey(id);
      const { snapshot: _snapshot, machineVersion: _machineVersion, ...info } = this.stored(key);
      if (kindOf(info) !== kind) continue;
      if (query.status !== undefined && info.status !== query.status) continue;
      if (sessions.length === limit) return { sessions, nextCursor: last };
      sessions.push(info);
      last = id;
    }
    return { sessions, nextCursor: undefined };
  }

  /** A page in an order: every session of the owner sorted by its position (a Map has no index). */
  private listInOrder(query: ListSessionsQuery, limit: number): SessionPage {
    const order = checkListOrder(query.order, query.cursor);
    const kind = checkListKind(query.kind);
    const positioned = [...this.tables.records.keys()]
      .filter((id) => ownedBy(id, query.userId))
      .map((id) => {
        const { snapshot: _s, machineVersion: _m, ...info } = this.stored(sessionOfMapKey(id));
        return { info, position: listPosition(order, info) };
      })
      .filter((p) => query.cursor === undefined || p.position > query.cursor)
      .filter((p) => kindOf(p.info) === kind)
      .filter((p) => query.status === undefined || p.info.status === query.status)
      .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
    const page = positioned.slice(0, limit);
    const more = positioned.length > limit;
    return {
      sessions: page.map((p) => p.info),
      nextCursor: more ? page[page.length - 1]?.position : undefined,
    };
  }

  async userUsage(userId: string | undefined): Promise<UsageTotals> {
    this.checkOpen();
    return this.totalsOf(userId);
  }

  async purge(key: SessionKey, audit: readonly AuditEntry[] = []): Promise<void> {
    this.checkOpen();
    const id = sessionMapKey(key);
    const audited = this.audit.encode(audit);
    if (!this.tables.records.has(id)) throw new SessionNotFoundError(key.sessionId);
    let deadline: number | undefined;
    try {
      deadline = this.stored(key).approvalDeadline;
    } catch {
      deadline = undefined; // a damaged record is purged all the same
    }
    this.tables.records.delete(id);
    this.tables.history.delete(id);
    this.tables.journal.delete(id);
    this.leases.drop(key);
    this.inbox.dropSession(key);
    this.deadlines.move(key, deadline, undefined);
    this.audit.write(audited);
    this.count(...audited.map((a) => a.text));
  }

  async readAudit(query: AuditQuery): Promise<AuditPage> {
    this.checkOpen();
    return this.audit.read(query);
  }

  async dueApprovals(query: DueApprovalsQuery): Promise<DueApprovals> {
    this.checkOpen();
    return this.deadlines.due(query);
  }

  async dropStaleDeadline(entry: DeadlineEntry): Promise<boolean> {
    this.checkOpen();
    let held: number | undefined;
    try {
      held = this.stored(entry.key).approvalDeadline;
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
    }
    return this.deadlines.dropStale(entry, held);
  }

  async acquireLease(
    key: SessionKey,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    this.checkOpen();
    return this.leases.acquire(key, owner, ttlMs);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease | undefined> {
    this.checkOpen();
    return this.leases.renew(lease, ttlMs);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    this.checkOpen();
    this.leases.release(lease);
  }

  async expiredLeases(query: ExpiredLeaseQuery): Promise<SessionKey[]> {
    this.checkOpen();
    return this.leases.expired(query);
  }

  async leaseOf(key: SessionKey): Promise<StoredLease | undefined> {
    this.checkOpen();
    return this.leases.leaseOf(key);
  }

  async submitDecisions(submission: DecisionSubmission): Promise<void> {
    this.checkOpen();
    return this.inbox.submitDecisions(submission);
  }

  async submittedDecisions(query: {
    limit: number;
  }): Promise<{ submitted: SubmittedDecisions[]; damaged: Error[] }> {
    this.checkOpen();
    return this.inbox.submittedDecisions(query);
  }

  async dropDecisions(entry: SubmittedDecisions): Promise<void> {
    this.checkOpen();
    return this.inbox.dropDecisions(entry);
  }

  async watchDecisions(onSubmitted: () => void): Promise<DecisionWatch> {
    this.checkOpen();
    return this.inbox.watchDecisions(onSubmitted);
  }

  stats(): StoreStats {
    return { ...this.written };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  // ---- parts ---------------------------------------------------------------------------------

  private checkOpen(): void {
    if (this.closed) throw new Error('MapSessionStore is closed');
  }

  /** The stored record of `key`, decoded and checked (`SessionNotFoundError` if none). */
  private stored(key: SessionKey): SessionRecord {
    const text = this.tables.records.get(sessionMapKey(key));
    if (text === undefined) throw new SessionNotFoundError(key.sessionId);
    return this.codecs.decodeRecord(key, text);
  }

  private encodeRecord(record: SessionRecord): string {
    const deadline = record.approvalDeadline;
    if (deadline !== undefined && (!Number.isSafeInteger(deadline) || deadline < 0)) {
      throw new TypeError(`approvalDeadline must be epoch milliseconds, got ${deadline}`);
    }
    return this.codecs.encodeRecord(record);
  }

  private totalsOf(userId: string | undefined): UsageTotals {
    return this.tables.totals.get(ownerMapKey(userId)) ?? emptyTotals();
  }

  private count(...texts: string[]): void {
    this.written = {
      batches: this.written.batches + 1,
      bytesWritten: this.written.bytesWritten + texts.reduce((n, t) => n + t.length, 0),
    };
  }
}
