import type { Item } from '../../src/items/item.js';
import type { AuditEntry, AuditPage, AuditQuery } from '../../src/persistence/audit-log.js';
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
} from '../../src/persistence/session-store.js';
import type { CrashCheckpoints } from './crash-point.js';

/** The call number a journal entry is about: `call-<n>`, or `steps` for the final answer. */
export function journalCallNumber(entry: JournalEntry, steps: number): number {
  const output = entry.output as { callId?: string; toolCalls?: { callId: string }[] };
  const callId = entry.kind === 'tool' ? output.callId : output.toolCalls?.[0]?.callId;
  if (callId === undefined) return entry.kind === 'model' ? steps : -1;
  return Number(/^call-(\d+)$/.exec(callId)?.[1] ?? -1);
}

/**
 * A SessionStore that delegates to a real one and passes the save checkpoints of the crash
 * worker: before the batch is written, right after it was handed over, and after it landed.
 * `n` is the highest call number among the batch's journal entries (-1 when it has none).
 */
export class CrashStore implements SessionStore {
  constructor(
    private readonly inner: SessionStore,
    private readonly checkpoints: CrashCheckpoints,
    private readonly steps: number,
  ) {}

  async save(commit: SessionCommit): Promise<SessionRecord> {
    const n = Math.max(-1, ...commit.journal.map((e) => journalCallNumber(e, this.steps)));
    await this.checkpoints.reach('save-before', n);
    const saving = this.inner.save(commit);
    await this.checkpoints.reach('save-during', n);
    const saved = await saving;
    await this.checkpoints.reach('save-after', n);
    return saved;
  }

  create(
    record: Omit<SessionRecord, 'version'>,
    items?: Item[],
    audit?: readonly AuditEntry[],
  ): Promise<SessionRecord> {
    return this.inner.create(record, items, audit);
  }

  load(key: SessionKey): Promise<SessionRecord> {
    return this.inner.load(key);
  }

  loadForUpdate(key: SessionKey): Promise<LoadedSession> {
    return this.inner.loadForUpdate(key);
  }

  readHistory(key: SessionKey, from?: number, to?: number): Promise<Item[]> {
    return this.inner.readHistory(key, from, to);
  }

  readJournal(key: SessionKey, runId: string, step: number): Promise<JournalEntry | undefined> {
    return this.inner.readJournal(key, runId, step);
  }

  readRunJournal(key: SessionKey, runId: string, from?: number): Promise<JournalEntry[]> {
    return this.inner.readRunJournal(key, runId, from);
  }

  list(query?: ListSessionsQuery): Promise<SessionPage> {
    return this.inner.list(query);
  }

  userUsage(userId: string | undefined): Promise<UsageTotals> {
    return this.inner.userUsage(userId);
  }

  purge(key: SessionKey, audit?: readonly AuditEntry[]): Promise<void> {
    return this.inner.purge(key, audit);
  }

  readAudit(query: AuditQuery): Promise<AuditPage> {
    return this.inner.readAudit(query);
  }

  stats(): StoreStats {
    return this.inner.stats();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
