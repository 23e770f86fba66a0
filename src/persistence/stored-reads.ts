import { InvalidSessionRecordError, SessionNotFoundError } from '../errors/session-errors.js';
import { checkJournalOutput } from '../machines/schemas/stored-value-checks.js';
import { plainJournalEntry } from './plain-records.js';
import { holdsJson } from './sealed-value.js';
import type { SessionRecordCodec } from './session-record-codec.js';
import * as keys from './session-keys.js';
import {
  JournalEntrySchema,
  SessionInfoSchema,
  decodeStored,
  decodeStoredWith,
  toJournalEntry,
  toSessionInfo,
} from './session-schemas.js';
import type { JournalEntry, SessionKey, SessionRecord } from './session-store.js';

/**
 * The checks every store runs on what it reads, whatever holds the bytes (a key-value
 * backend, a SQL row): values are sealed under their logical key (`session-keys.ts`), so a
 * value changed, truncated or moved to another session, position or step is named by key.
 */

/** Decodes a session record and checks that it belongs to `key`. */
export function decodeRecordAt(
  codec: SessionRecordCodec,
  key: SessionKey,
  raw: string,
): SessionRecord {
  return checkedOwner(key, codec.decode(keys.recordKey(key), raw));
}

/** `record` (decoded from the session's record key), checked to belong to `key`. */
export function checkedOwner(key: SessionKey, record: SessionRecord): SessionRecord {
  const recordKey = keys.recordKey(key);
  if (record.sessionId !== key.sessionId || record.userId !== key.userId) {
    throw new InvalidSessionRecordError(recordKey, 'record does not match its key', {
      sessionId: key.sessionId,
    });
  }
  return record;
}

/**
 * A loaded record, checked with its listing entry: both must exist and agree (the entry is
 * rewritten with every save, so it must be exactly what this record would write, or the
 * unsealed form agentstate 0.1 wrote).
 */
export function checkedRecord(
  codec: SessionRecordCodec,
  key: SessionKey,
  raw: string | undefined,
  rawIndex: string | undefined,
): SessionRecord {
  const recordKey = keys.recordKey(key);
  const scope = { sessionId: key.sessionId };
  if (raw === undefined) {
    if (rawIndex === undefined) throw new SessionNotFoundError(key.sessionId);
    throw new InvalidSessionRecordError(
      recordKey,
      'the session record is missing but its listing entry exists',
      scope,
    );
  }
  return checkedListing(key, decodeRecordAt(codec, key, raw), rawIndex);
}

/**
 * `record` (decoded from the session's stored record), checked with its listing entry: it
 * must exist and be exactly what this record would write (or the unsealed form agentstate 0.1
 * wrote).
 */
export function checkedListing(
  key: SessionKey,
  record: SessionRecord,
  rawIndex: string | undefined,
): SessionRecord {
  const indexKey = keys.listIndexKey(key);
  const scope = { sessionId: key.sessionId };
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

/** A journal entry read at (runId, step), checked against that key, its output by its kind. */
export function decodeJournalAt(
  key: SessionKey,
  raw: string,
  runId: string,
  step: number,
): JournalEntry {
  const entryKey = keys.journalKey(key, runId, step);
  const scope = { sessionId: key.sessionId, runId };
  const entry = decodeStoredWith(entryKey, raw, JournalEntrySchema, plainJournalEntry, scope);
  if (entry.runId !== runId || entry.step !== step) {
    throw new InvalidSessionRecordError(entryKey, 'entry does not match its key', scope);
  }
  checkJournalOutput(entryKey, entry, scope);
  return toJournalEntry(entry);
}
