import type { Item } from '../items/item.js';
import { storedAudit, decodeAuditAt, type AuditEntry } from './audit-log.js';
import { itemBeforeWrite, usageDeltaBeforeWrite } from './checked-writes.js';
import { checkHistoryEntries } from './history-reader.js';
import type { RecordMigration } from './migrations.js';
import * as keys from './session-keys.js';
import { SessionRecordCodec } from './session-record-codec.js';
import { StepOutputByKind } from '../machines/schemas/step-output-by-kind.js';
import { JournalEntrySchema, checkBeforeWrite, encodeStored } from './session-schemas.js';
import type { JournalEntry, SessionKey, SessionRecord, UsageTotals } from './session-store.js';
import { decodeJournalAt, decodeRecordAt } from './stored-reads.js';

export interface RecordCodecsOptions {
  /** Upgrade steps for records written with a schema version older than 1. */
  migrations?: readonly RecordMigration[] | undefined;
}

/**
 * The stored form of every value a session store keeps, for a store written outside
 * agentstate (`agentstate-runtime/store`): each value is JSON text under an integrity seal of its
 * logical key, checked on read, so a value changed, truncated or moved to another session,
 * position or step is refused as `InvalidSessionRecordError` naming that key, the way the
 * stores agentstate ships refuse it (the contract suite checks this). A store keeps the texts
 * wherever it likes (rows, documents, files) and hands each back to its decoder with the key
 * it was written for. Encoders check what they write (`TypeError` naming the field).
 */
export class RecordCodecs {
  private readonly records: SessionRecordCodec;

  constructor(options: RecordCodecsOptions = {}) {
    this.records = new SessionRecordCodec({ migrations: options.migrations });
  }

  /** A session record, versioned with `CURRENT_SCHEMA_VERSION`. */
  encodeRecord(record: SessionRecord): string {
    return this.records.encode(keys.recordKey(record), record);
  }

  /**
   * The record stored for `key`: seal, schema (older schema versions migrated) and owner
   * checked. Also `UnsupportedSchemaVersionError` for a record of a newer agentstate.
   */
  decodeRecord(key: SessionKey, text: string): SessionRecord {
    return decodeRecordAt(this.records, key, text);
  }

  /** The history item at `position` of the session's log. */
  encodeItem(key: SessionKey, position: number, item: Item): string {
    return encodeStored(keys.historyKey(key, position), itemBeforeWrite(item));
  }

  /**
   * The items `[from, to)` from the stored texts of those positions, read in position order:
   * every position must be there, each item sealed at its own position, and each tool result
   * must answer a call of its turn.
   */
  async decodeHistory(
    key: SessionKey,
    from: number,
    to: number,
    texts: Iterable<readonly [position: number, text: string]>,
  ): Promise<Item[]> {
    const entries: [string, string][] = [];
    for (const [position, text] of texts) entries.push([keys.historyKey(key, position), text]);
    return checkHistoryEntries(key, from, to, entries);
  }

  /** A journal entry, sealed at its (session, run, step). */
  encodeJournalEntry(key: SessionKey, entry: JournalEntry): string {
    const checked = checkBeforeWrite('journal entry', entry, JournalEntrySchema);
    checkBeforeWrite(`${checked.kind} step output`, checked.output, StepOutputByKind[checked.kind]);
    return encodeStored(keys.journalKey(key, checked.runId, checked.step), entry);
  }

  /** The journal entry stored at (session, `runId`, `step`). */
  decodeJournalEntry(key: SessionKey, runId: string, step: number, text: string): JournalEntry {
    return decodeJournalAt(key, text, runId, step);
  }

  /**
   * An audit entry and its key, `a!<owner>!<at, 16 digits>!<id>`: keys of one owner sort in
   * time order, the order `readAudit` returns entries in.
   */
  encodeAuditEntry(entry: AuditEntry): { key: string; text: string } {
    const { key, value } = storedAudit(entry);
    return { key, text: value };
  }

  /** The audit entry stored at `key` (as `encodeAuditEntry` gave it), of `userId`'s log. */
  decodeAuditEntry(key: string, text: string, userId: string | undefined): AuditEntry {
    return decodeAuditAt(key, text, userId);
  }

  /** A usage delta of a commit, checked before it is added to the owner's totals. */
  checkUsageDelta(delta: UsageTotals): UsageTotals {
    return usageDeltaBeforeWrite(delta);
  }
}
