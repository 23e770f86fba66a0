import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { isObject } from '../../validation/option-checks.js';
import { sealOf } from '../sealed-value.js';
import type { SessionRecordCodec } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import { SessionInfoSchema, decodeStored, readStored } from '../session-schemas.js';
import type { SessionKey, SessionRecord } from '../session-store.js';
import { checkedListing, checkedOwner, checkedRecord, decodeRecordAt } from '../stored-reads.js';
import { changeCounts, setField, type Json, type StoredChanges } from './record-changes.js';

/**
 * The reads of a session record stored as a base plus its changes (`record-changes.ts`): the
 * record rebuilt from both keys, each sealed and checked, and a damaged pair named by key.
 */

/**
 * Applies `changes` to `target` (see {@link Changes}). False if a change is malformed or does
 * not fit: a field to remove, or an object whose fields change, missing.
 */
function applyChanges(target: Json, changes: Json): boolean {
  for (const field of Object.keys(changes)) {
    const change = changes[field];
    if (isObject(change)) {
      const inner = Object.hasOwn(target, field) ? target[field] : undefined;
      if (!isObject(inner) || !applyChanges(inner, change)) return false;
    } else if (!Array.isArray(change) || change.length > 1) {
      return false;
    } else if (change.length === 1) {
      setField(target, field, change[0]);
    } else if (Object.hasOwn(target, field)) {
      delete target[field];
    } else {
      return false;
    }
  }
  return true;
}

const isChanges = (value: unknown): value is StoredChanges =>
  isObject(value) &&
  typeof value['base'] === 'string' &&
  Number.isSafeInteger(value['version']) &&
  isObject(value['changes']) &&
  Number.isSafeInteger(value['sets']) &&
  Number.isSafeInteger(value['removes']);

/**
 * The record stored at `raw` (the record key) with `rawChanges` (the changes key) applied:
 * seals, base, paths, schema (older schema versions migrated) and owner checked.
 */
export function decodeRecordWithChanges(
  codec: SessionRecordCodec,
  key: SessionKey,
  raw: string,
  rawChanges: string | undefined,
): SessionRecord {
  if (rawChanges === undefined) return decodeRecordAt(codec, key, raw);
  const recordKey = keys.recordKey(key);
  const changesKey = keys.recordChangesKey(key);
  const scope = { sessionId: key.sessionId };
  const base = readStored(recordKey, raw, scope);
  const changes = readStored(changesKey, rawChanges, scope);
  if (changes.legacy || !isChanges(changes.value)) {
    throw new InvalidSessionRecordError(changesKey, 'the record changes are malformed', scope);
  }
  const envelope = isObject(base.value) ? base.value : undefined;
  const record = envelope?.['record'];
  // The changes name the exact bytes of their base: a record changed since is the damage.
  if (
    !envelope ||
    base.legacy ||
    changes.value.base !== sealOf(raw) ||
    !isObject(record) ||
    record['version'] !== changes.value.version
  ) {
    throw new InvalidSessionRecordError(
      recordKey,
      `the record is not the one its stored changes were made against (version ${changes.value.version})`,
      scope,
    );
  }
  const counts = changeCounts(changes.value.changes);
  if (
    counts.sets !== changes.value.sets ||
    counts.removes !== changes.value.removes ||
    !applyChanges(envelope, changes.value.changes)
  ) {
    throw new InvalidSessionRecordError(
      changesKey,
      'the record changes do not fit the stored record',
      scope,
    );
  }
  // The base is exactly what was written whole: what is wrong with the result came with the
  // changes.
  return checkedOwner(key, codec.decodeValue(changesKey, envelope, false));
}

/** Changes stored without the record they change: damage, never a session that does not exist. */
export function orphanChanges(key: SessionKey): InvalidSessionRecordError {
  return new InvalidSessionRecordError(
    keys.recordKey(key),
    'the session record is missing but changes to it are stored',
    { sessionId: key.sessionId },
  );
}

/** The record for `key` from its stored values, or `undefined` if it has none (nor changes). */
export function storedRecordOf(
  codec: SessionRecordCodec,
  key: SessionKey,
  raw: string | undefined,
  rawChanges: string | undefined,
): SessionRecord | undefined {
  if (raw === undefined) {
    if (rawChanges !== undefined) throw orphanChanges(key);
    return undefined;
  }
  return decodeRecordWithChanges(codec, key, raw, rawChanges);
}

/** `checkedRecord` of a record that may be stored with changes. */
export function checkedRecordWithChanges(
  codec: SessionRecordCodec,
  key: SessionKey,
  raw: string | undefined,
  rawChanges: string | undefined,
  rawIndex: string | undefined,
): SessionRecord {
  if (raw === undefined) {
    if (rawChanges !== undefined) throw orphanChanges(key);
    return checkedRecord(codec, key, raw, rawIndex);
  }
  const record = decodeRecordWithChanges(codec, key, raw, rawChanges);
  try {
    return checkedListing(key, record, rawIndex);
  } catch (error) {
    // A well-formed listing entry that disagrees with the record: the entry is written with
    // every save, the whole record only now and then, so what is wrong is the changes: gone
    // (the record is older than its entry) or changed.
    const listed = listedVersion(key, rawIndex);
    if (listed === undefined) throw error;
    const changesKey = keys.recordChangesKey(key);
    const scope = { sessionId: key.sessionId };
    if (rawChanges !== undefined) {
      throw new InvalidSessionRecordError(
        changesKey,
        'the record with its stored changes disagrees with its listing entry',
        scope,
      );
    }
    if (listed > record.version) {
      throw new InvalidSessionRecordError(
        changesKey,
        `the record changes are missing (the record is at version ${record.version}, its listing entry at ${listed})`,
        scope,
      );
    }
    throw error;
  }
}

/** The version a well-formed listing entry names (`undefined` if the entry is damaged). */
function listedVersion(key: SessionKey, rawIndex: string | undefined): number | undefined {
  if (rawIndex === undefined) return undefined;
  try {
    return decodeStored(keys.listIndexKey(key), rawIndex, SessionInfoSchema).version;
  } catch {
    return undefined;
  }
}
