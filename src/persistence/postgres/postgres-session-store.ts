/* eslint-disable max-lines -- Long on purpose: one class implementing one contract, the
 * SessionStore on PostgreSQL; each method is one statement of the store and the checks around it,
 * read as a whole. Its parts live apart: leases, the deadline index, the decision and message
 * inboxes, the audit log, session watches, the statements and the row checks.
 */
import type { StoreSupports } from '../session-store.js';
import { LiveRunCancels } from '../run-cancels.js';
import {
  SessionConflictError,
  SessionNotFoundError,
  SessionSaveFailedError,
} from '../../errors/session-errors.js';
import { Item } from '../../items/item.js';
import type { AuditEntry, AuditPage, AuditQuery } from '../audit-log.js';
import { checkHistoryEntries } from '../history-reader.js';
import { auditValues, readPostgresAudit } from './postgres-audit.js';
import { warnIsolation } from '../isolation-warning.js';
import { systemLeaseClock } from '../lease-table.js';

export type { PostgresSessionStoreOptions } from './postgres-store-options.js';
import { SessionRecordCodec } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import { encodeStored } from '../session-schemas.js';
import type {
  JournalEntry,
  ListSessionsQuery,
  LoadedSession,
  SessionCommit,
  SessionKey,
  SessionPage,
  SessionRecord,
  SessionStore,
  StoreStats,
  UsageTotals,
} from '../session-store.js';
import type { DeadlineEntry, DueApprovals, DueApprovalsQuery } from '../approval-deadlines.js';
import type { DecisionInbox } from '../decision-inbox.js';
import type { SessionLease, SessionLeases } from '../session-leases.js';
import { checkAppend, checkCreateItems, historyEnd, listLimit } from '../store-args.js';
import { encodedHistory, encodedListing } from '../entries/encoded-entries.js';
import { checkedRecord, decodeJournalAt } from '../stored-reads.js';
import { PostgresDatabase } from './postgres-database.js';
import { PostgresDeadlines } from './postgres-deadlines.js';
import { KnownRecords } from './postgres-known-records.js';
import { PostgresDecisions } from './postgres-decisions.js';
import { PostgresMessages, dequeuedIds } from './postgres-messages.js';
import { PostgresMemory } from './postgres-memory.js';
import type { MemoryStore } from '../memory-store.js';
import type { ScheduleStore } from '../schedule-store.js';
import { PostgresSchedules } from './postgres-schedules.js';
import { bindCapability } from '../capability-methods.js';
import type { MessageInbox } from '../message-inbox.js';
import { PostgresSessionWatch } from './postgres-session-watch.js';
import { SharedListen } from './notifications/shared-listen.js';
import { listPositions, orderedSession, type OrderedRow } from './postgres-list-orders.js';
import { checkListOrder, listPosition } from '../entries/list-order.js';
import { checkListKind } from '../entries/list-kind.js';
import type { SessionWatches } from '../session-watches.js';
import { PostgresLeases, checkedSessionId, keyOf } from './postgres-leases.js';
import {
  checkPostgresOptions,
  type PostgresSessionStoreOptions,
} from './postgres-store-options.js';
import {
  md5,
  totalsFromRow,
  whySaveRefused,
  listedSession,
  type ListingRow,
  type SaveCheckRow,
  type TotalsRow,
} from './postgres-rows.js';
import { usageDeltaBeforeWrite } from '../checked-writes.js';

/**
 * A {@link SessionStore} on PostgreSQL, for many processes sharing sessions: the same contract
 * as the LevelDB store (STORE-CONTRACT.md), with leases shared across processes.
 *
 * - One step is one statement, one round trip: version check, record, history, journal,
 *   totals, audit entries and lease check are CTEs of one parameterised statement (a
 *   `BEGIN; ...; COMMIT` text cannot carry parameters; a transaction over several round trips
 *   holds a connection idle in transaction between them).
 * - Every value is validated, sealed and serialised before the pool hands out a connection.
 * - Pooler-safe: unnamed statements only (no named prepared statements), every table name
 *   schema-qualified, no `SET`, no temporary tables, no session advisory locks.
 * - `owner` (the user partition) leads every primary key and every `WHERE`.
 *
 * @example
 * const store = await PostgresSessionStore.open({ connectionString: process.env.DATABASE_URL });
 * const agent = new Agent({ name: 'support', model, store });
 */
export class PostgresSessionStore
  implements SessionStore, SessionLeases, MemoryStore, ScheduleStore
{
  /** Every optional part of the contract (`STORE_CONTRACT`): a store shared by processes. */
  readonly supports = {
    leases: true,
    leaseReads: true,
    deadlineIndex: true,
    decisionInbox: true,
    messageInbox: true,
    queuedSessions: true,
    sessionWatches: true,
    memory: true,
    schedules: true,
  } as const satisfies StoreSupports;
  readonly schema: string;
  private readonly db: PostgresDatabase;
  /** How long `close` waits for the server's goodbyes before it cuts the connections. */
  private readonly closeTimeoutMs: number;
  /** Test-only: saves skip their lease check (`unsafeSkipFencing`). */
  private readonly skipFencing: boolean;
  private readonly codec: SessionRecordCodec;
  /** md5 of the record text this store last read or wrote per session (bounded). */
  private readonly known = new KnownRecords();
  // Leases, the approval-deadline index and the decision inbox are kept by their own classes.
  readonly acquireLease: SessionLeases['acquireLease'];
  readonly renewLease: SessionLeases['renewLease'];
  readonly releaseLease: SessionLeases['releaseLease'];
  readonly expiredLeases: SessionLeases['expiredLeases'];
  readonly leaseOf: NonNullable<SessionLeases['leaseOf']>;
  readonly dueApprovals: (query: DueApprovalsQuery) => Promise<DueApprovals>;
  readonly dropStaleDeadline: (entry: DeadlineEntry) => Promise<boolean>;
  readonly submitDecisions: DecisionInbox['submitDecisions'];
  readonly submittedDecisions: DecisionInbox['submittedDecisions'];
  readonly dropDecisions: DecisionInbox['dropDecisions'];
  readonly watchDecisions: DecisionInbox['watchDecisions'];
  readonly queueMessage: MessageInbox['queueMessage'];
  readonly queuedMessages: MessageInbox['queuedMessages'];
  readonly dropQueuedMessage: MessageInbox['dropQueuedMessage'];
  readonly queuedSessions: NonNullable<MessageInbox['queuedSessions']>;
  /** Every process's saves of a session, heard by LISTEN/NOTIFY (`agent.attach` follows them). */
  readonly watchSession: SessionWatches['watchSession'];
  private readonly watch: PostgresSessionWatch;
  /** The store's one LISTEN connection, shared by its watchers. */
  private readonly listening: SharedListen;
  // Memory across sessions (`PostgresMemory`: pgvector, or an exact search in process).
  readonly putMemories: MemoryStore['putMemories'];
  readonly searchMemories: MemoryStore['searchMemories'];
  readonly listMemories: MemoryStore['listMemories'];
  readonly getMemories: MemoryStore['getMemories'];
  readonly deleteMemories: MemoryStore['deleteMemories'];
  readonly readWorkingMemory: MemoryStore['readWorkingMemory'];
  readonly writeWorkingMemory: MemoryStore['writeWorkingMemory'];
  readonly forgetMemories: MemoryStore['forgetMemories'];
  readonly memoryResources: MemoryStore['memoryResources'];
  // Schedules and their next-tick index (`PostgresSchedules`), their methods put on the store
  // by `bindCapability` (declared here for TypeScript).
  declare readonly createSchedule: ScheduleStore['createSchedule'];
  declare readonly getSchedule: ScheduleStore['getSchedule'];
  declare readonly listSchedules: ScheduleStore['listSchedules'];
  declare readonly saveSchedule: ScheduleStore['saveSchedule'];
  declare readonly deleteSchedule: ScheduleStore['deleteSchedule'];
  declare readonly dueSchedules: ScheduleStore['dueSchedules'];
  /** The runs executing in this process on this store (others cancel through the inbox). */
  readonly runCancels = new LiveRunCancels();

  constructor(options: PostgresSessionStoreOptions) {
    checkPostgresOptions(options);
    this.db = new PostgresDatabase(options);
    this.closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
    this.skipFencing = options.unsafeSkipFencing === true;
    this.schema = this.db.schema;
    this.codec = new SessionRecordCodec({ migrations: options.migrations });
    const leases = new PostgresLeases(this.db, options.clock ?? systemLeaseClock);
    this.acquireLease = leases.acquireLease.bind(leases);
    this.renewLease = leases.renewLease.bind(leases);
    this.releaseLease = leases.releaseLease.bind(leases);
    this.expiredLeases = leases.expiredLeases.bind(leases);
    this.leaseOf = leases.leaseOf.bind(leases);
    const deadlines = new PostgresDeadlines(this.db, this.codec);
    this.dueApprovals = deadlines.dueApprovals.bind(deadlines);
    this.dropStaleDeadline = deadlines.dropStaleDeadline.bind(deadlines);
    // One LISTEN connection (while anything listens, and a linger) for the inbox and the saves.
    const saves = this.db.channel('saves');
    const listening = (this.listening = new SharedListen(
      (onNotify, onLost) => this.db.listen([this.db.channel(), saves], onNotify, onLost),
      options.listenLingerMs,
    ));
    const inbox = new PostgresDecisions(this.db, listening);
    this.submitDecisions = inbox.submitDecisions.bind(inbox);
    this.submittedDecisions = inbox.submittedDecisions.bind(inbox);
    this.dropDecisions = inbox.dropDecisions.bind(inbox);
    this.watchDecisions = inbox.watchDecisions.bind(inbox);
    const messages = new PostgresMessages(this.db);
    this.queueMessage = messages.queueMessage.bind(messages);
    this.queuedMessages = messages.queuedMessages.bind(messages);
    this.dropQueuedMessage = messages.dropQueuedMessage.bind(messages);
    this.queuedSessions = messages.queuedSessions.bind(messages);
    this.watch = new PostgresSessionWatch(this.db, listening, saves);
    this.watchSession = this.watch.watchSession.bind(this.watch);
    const memory = new PostgresMemory(this.db, {
      cacheBytes: options.memoryCacheBytes ?? 512 * 1024 * 1024,
      erase: options.memoryErase ?? 'vacuum',
    });
    this.putMemories = memory.putMemories.bind(memory);
    this.searchMemories = memory.searchMemories.bind(memory);
    this.listMemories = memory.listMemories.bind(memory);
    this.getMemories = memory.getMemories.bind(memory);
    this.deleteMemories = memory.deleteMemories.bind(memory);
    this.readWorkingMemory = memory.readWorkingMemory.bind(memory);
    this.writeWorkingMemory = memory.writeWorkingMemory.bind(memory);
    this.forgetMemories = memory.forgetMemories.bind(memory);
    this.memoryResources = memory.memoryResources.bind(memory);
    bindCapability(this, 'schedules', new PostgresSchedules(this.db));
  }

  /** Creates a store and migrates its schema (surfacing connection and version errors). */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const store = new PostgresSessionStore(options);
    try {
      await store.ready();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Creates or migrates the tables once; a newer schema is `UnsupportedSchemaVersionError`. */
  ready(): Promise<void> {
    return this.db.ready();
  }

  async create(
    input: Omit<SessionRecord, 'version'>,
    items: Item[] = [],
    audit?: readonly AuditEntry[],
  ): Promise<SessionRecord> {
    const record: SessionRecord = { ...input, version: 1 };
    checkCreateItems(record, items);
    const key = keyOf(record);
    const encoded = this.codec.encode(keys.recordKey(key), record);
    const values = [
      keys.ownerPart(key.userId),
      key.sessionId,
      encoded,
      encodedListing(record).value,
      record.status,
      record.historyLength,
      encodedHistory(key, 0, items).map((e) => e.value),
      record.approvalDeadline ?? null,
      ...auditValues(audit),
      listPositions(record),
      record.workflow ?? null,
    ];
    const { rows } = await this.db.query<{ created: number }>(
      'create a session',
      key,
      () => this.db.sql.create(),
      values,
    );
    if (rows[0]?.created !== 1) throw new SessionConflictError(record.sessionId, 0, undefined);
    this.db.count(values);
    this.remember(key, record.version, encoded);
    return record;
  }

  async load(key: SessionKey): Promise<SessionRecord> {
    const { rows } = await this.db.query<{ record: string; listing: string }>(
      'load a session',
      key,
      () => this.db.sql.load(),
      [keys.ownerPart(key.userId), checkedSessionId(key)],
    );
    return this.checked(key, rows[0]);
  }

  async loadForUpdate(key: SessionKey): Promise<LoadedSession> {
    const { rows } = await this.db.query<
      { record: string | null; listing: string | null } & TotalsRow
    >('load a session', key, () => this.db.sql.loadForUpdate(), [
      keys.ownerPart(key.userId),
      checkedSessionId(key),
    ]);
    const row = rows[0];
    const record = this.checked(
      key,
      row?.record == null ? undefined : (row as { record: string; listing: string }),
    );
    return { record, userUsage: totalsFromRow(key.userId, row, true) };
  }

  async save(commit: SessionCommit): Promise<SessionRecord> {
    const { record: next, items, journal, userUsageDelta } = commit;
    // Test-only: without its lease the statement checks none (fencing skipped).
    const lease = this.skipFencing ? undefined : commit.lease;
    const key = keyOf(next);
    const owner = keys.ownerPart(key.userId);
    const start = next.historyLength - items.length;
    if (start < 0) checkAppend(0, items.length, next.historyLength);
    const saved: SessionRecord = { ...next, version: next.version + 1 };
    const encoded = this.codec.encode(keys.recordKey(key), saved);
    // Journal entries are the runtime's own (typed); each is checked when read back. Their
    // keys are made first: a bad run id or step is a `TypeError` before anything is sent.
    for (const e of journal) keys.journalKey(key, e.runId, e.step);
    const delta = userUsageDelta && usageDeltaBeforeWrite(userUsageDelta);
    const base = [
      owner,
      key.sessionId,
      next.version,
      start,
      encoded,
      encodedListing(saved).value,
      saved.status,
      saved.historyLength,
      encodedHistory(key, start, items).map((e) => e.value),
      journal.map((e) => e.runId),
      journal.map((e) => e.step),
      journal.map((e) => encodeStored(keys.journalKey(key, e.runId, e.step), e)),
      lease?.owner ?? null,
      lease?.token ?? null,
    ];
    const totals = delta ? [delta.turns, delta.inputTokens, delta.outputTokens, delta.costUsd] : [];
    const audit = commit.audit?.length ? auditValues(commit.audit) : [];
    const dequeued = commit.dequeued?.length ? [dequeuedIds(commit.dequeued)] : [];
    const sessionKey = keys.sessionPart(key);
    let knownMd5 = this.known.get(sessionKey);
    // Two tries cover a stored text this store had not seen; a third outcome means the row
    // keeps changing under the same version (only a hand edit does that).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const expected = knownMd5?.version === next.version ? knownMd5.md5 : null;
      if (expected !== null) {
        const deadline = saved.approvalDeadline ?? null;
        const positions = listPositions(saved);
        const workflow = saved.workflow ?? null;
        const values = [
          ...base,
          expected,
          deadline,
          positions,
          workflow,
          ...totals,
          ...audit,
          ...dequeued,
        ];
        const rows = await this.db.write(
          key,
          values,
          delta !== undefined,
          audit.length > 0,
          dequeued.length > 0,
        );
        if (rows === 1) {
          this.db.count([...base, ...audit]);
          this.remember(key, saved.version, encoded);
          return saved;
        }
      }
      // Not saved, or the stored text is unknown here: read it, name what stops the save.
      const current = await this.inspect(key, next, start, items.length, lease);
      knownMd5 = { version: next.version, md5: current };
    }
    throw new SessionSaveFailedError(
      key.sessionId,
      new Error('the stored record changed under the same version while saving'),
    );
  }

  async readHistory(key: SessionKey, from = 0, to?: number): Promise<Item[]> {
    const end = await historyEnd(from, to, async () => (await this.load(key)).historyLength);
    if (end === undefined) return [];
    const { rows } = await this.db.query<{ seq: number; item: string }>(
      'read history',
      key,
      () => this.db.sql.history(),
      [keys.ownerPart(key.userId), key.sessionId, from, end],
    );
    return checkHistoryEntries(
      key,
      from,
      end,
      rows.map((row) => [keys.historyKey(key, row.seq), row.item] as [string, string]),
    );
  }

  async readJournal(
    key: SessionKey,
    runId: string,
    step: number,
  ): Promise<JournalEntry | undefined> {
    keys.journalKey(key, runId, step);
    const { rows } = await this.db.query<{ entry: string }>(
      'read the journal',
      key,
      () => this.db.sql.journalEntry(),
      [keys.ownerPart(key.userId), key.sessionId, runId, step],
    );
    const raw = rows[0]?.entry;
    return raw === undefined ? undefined : decodeJournalAt(key, raw, runId, step);
  }

  async readRunJournal(key: SessionKey, runId: string, from = 0): Promise<JournalEntry[]> {
    keys.journalKey(key, runId, from);
    const { rows } = await this.db.query<{ step: number; entry: string }>(
      'read the journal',
      key,
      () => this.db.sql.runJournal(),
      [keys.ownerPart(key.userId), key.sessionId, runId, from],
    );
    return rows.map((row) => decodeJournalAt(key, row.entry, runId, row.step));
  }

  async list(query: ListSessionsQuery = {}): Promise<SessionPage> {
    const limit = listLimit(query);
    const kind = checkListKind(query.kind);
    const { userId, status, cursor } = query;
    if (query.order !== undefined) {
      const order = checkListOrder(query.order, cursor);
      const { rows } = await this.db.query<OrderedRow>(
        'list sessions',
        {},
        () => this.db.sql.listInOrder(order, kind),
        [keys.ownerPart(userId), cursor ?? null, status ?? null, limit + 1],
      );
      if (userId === undefined && (await this.db.hasNamedOwners())) warnIsolation();
      const sessions = rows.slice(0, limit).map((row) => orderedSession(userId, order, row));
      const last = sessions[sessions.length - 1];
      return {
        sessions,
        nextCursor: rows.length > limit && last ? listPosition(order, last) : undefined,
      };
    }
    const { rows: listed } = await this.db.query<ListingRow>(
      'list sessions',
      {},
      () => this.db.sql.list(kind),
      [keys.ownerPart(userId), cursor ?? null, status ?? null, limit + 1],
    );
    if (userId === undefined && (await this.db.hasNamedOwners())) warnIsolation();
    const sessions = listed.slice(0, limit).map((row) => listedSession(userId, row));
    const more = listed.length > limit;
    return { sessions, nextCursor: more ? sessions[sessions.length - 1]?.sessionId : undefined };
  }

  async userUsage(userId: string | undefined): Promise<UsageTotals> {
    const { rows } = await this.db.query<TotalsRow>(
      'read usage totals',
      {},
      () => this.db.sql.totals(),
      [keys.ownerPart(userId)],
    );
    return totalsFromRow(userId, rows[0], rows[0]?.has_sessions === true);
  }

  async purge(key: SessionKey, audit?: readonly AuditEntry[]): Promise<void> {
    const { rows } = await this.db.query<{ purged: number }>(
      'purge a session',
      key,
      () => this.db.sql.purge(),
      [keys.ownerPart(key.userId), checkedSessionId(key), ...auditValues(audit)],
    );
    this.known.delete(keys.sessionPart(key));
    if (rows[0]?.purged !== 1) throw new SessionNotFoundError(key.sessionId);
  }

  readAudit(query: AuditQuery): Promise<AuditPage> {
    return readPostgresAudit(this.db, query);
  }

  /** Statements and bytes of values written by this store since it was created. */
  stats(): StoreStats {
    return this.db.stats();
  }

  /**
   * Ends the LISTEN connection at once (lingering or not) and the pool if the store created
   * it; a caller-owned pool is left open. Settles in every case (after a server restart too)
   * once the sockets of the store's own connections are closed: past `closeTimeoutMs` (a server
   * that stopped answering never says goodbye) they are cut, and their statements fail typed.
   */
  async close(): Promise<void> {
    // Held (not unref'd): the close being awaited, the process waits at most this bound.
    const bound = setTimeout(() => this.db.cutOff(), this.closeTimeoutMs);
    try {
      await this.watch.close();
      await this.listening.close();
      await this.db.close();
      await this.db.released();
    } finally {
      clearTimeout(bound);
    }
  }

  /** After a save updated nothing: reads the row and throws what stopped it (see whySaveRefused). */
  private async inspect(
    key: SessionKey,
    next: SessionRecord,
    start: number,
    appended: number,
    lease: SessionLease | undefined,
  ): Promise<string> {
    const { rows } = await this.db.query<SaveCheckRow>(
      'check a save',
      key,
      () => this.db.sql.inspect(),
      [keys.ownerPart(key.userId), key.sessionId],
    );
    return whySaveRefused(this.codec, key, rows[0], { next, start, appended, lease });
  }

  private checked(
    key: SessionKey,
    row: { record: string; listing: string } | undefined,
  ): SessionRecord {
    const record = checkedRecord(this.codec, key, row?.record, row?.listing);
    if (row) this.remember(key, record.version, row.record);
    return record;
  }

  private remember(key: SessionKey, version: number, text: string): void {
    this.known.set(keys.sessionPart(key), { version, md5: md5(text) });
  }
}
