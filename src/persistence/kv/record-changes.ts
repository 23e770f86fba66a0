import { isObject } from '../../validation/option-checks.js';
import { sameJson } from '../../validation/same-json.js';
import type { KvOp } from './backends/kv-backend.js';
import { sealOf, sealValue } from '../sealed-value.js';
import { envelopeJson, type WrittenEnvelope } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';

/**
 * A session record stored as a base plus its changes since the base. Between two saves of a
 * run, a few fields of the record change (its version, the run's step, a call); the store keeps
 * the whole envelope it last wrote at the record key (`s!`) as the base and writes at the
 * changes key (`c!`) only the fields that differ from it, each as its path and new value,
 * sealed over that key with the base's own checksum and version. The base is written whole
 * again when there is none in this process's memory to compare with, when the changes would
 * be more than half the base's size, or when the run ends or the session leaves `active`: a
 * session at rest is one whole record, as before this form existed.
 *
 * The changes are found without turning the record into JSON: objects that XState's persisted
 * snapshot shares with the last one (`===`) are skipped, and only objects with the same
 * fields in the same order are walked into (others are replaced whole), so the record read
 * back is the one saved, field order included. A reader (`record-changes-reads.ts`) checks
 * both seals, that the changes were made against exactly the stored base and that every change
 * fits it; anything else is `InvalidSessionRecordError` naming the key, as for any damaged value.
 */

export type Json = Record<string, unknown>;
/**
 * The changes to an object, by field: `[value]` sets the field (added at the end of the object
 * if new), `[]` removes it, and an object holds the changes to the field's own fields.
 */
export type Changes = Json;

/** The whole envelope a store wrote at a record key, kept to write later saves against. */
export interface RecordBase {
  /** The envelope that was stringified (never changed afterwards). */
  readonly envelope: WrittenEnvelope;
  /** Its stored value at the record key. */
  readonly raw: string;
  readonly jsonLength: number;
}

/** A record's stored form after a write: the two keys' values, and the base to write against. */
export interface StoredRecord {
  /** The value at the record key. */
  raw: string;
  /** The value at the changes key (`undefined`: none, the record is whole). */
  changes: string | undefined;
  base: RecordBase;
}

/** The value stored at the changes key. */
export interface StoredChanges {
  /** The checksum of the base's stored value. */
  base: string;
  /** The base record's version. */
  version: number;
  changes: Changes;
  /**
   * How many fields the changes set and remove, at any depth: a change lost from the value (a
   * field set or removed left out of `changes`) would otherwise read as the base's field kept.
   */
  sets: number;
  removes: number;
}

/** How many fields `changes` sets and removes, at any depth. */
export function changeCounts(changes: Changes): { sets: number; removes: number } {
  let sets = 0;
  let removes = 0;
  for (const field of Object.keys(changes)) {
    const change = changes[field];
    if (Array.isArray(change)) {
      if (change.length === 1) sets++;
      else removes++;
    } else if (isObject(change)) {
      const inner = changeCounts(change);
      sets += inner.sets;
      removes += inner.removes;
    }
  }
  return { sets, removes };
}

/** The changes are written when they are at most this fraction of the base's JSON. */
const MAX_CHANGES_SHARE = 0.5;

/**
 * Whether `next` is `base` with fields removed, changed, or added at the end: its defined
 * fields (those JSON keeps) are the base's that it keeps, in the base's order, then new ones.
 * Changes to such an object give it back with its fields in `next`'s order.
 */
function fieldsFit(base: Json, next: Json): boolean {
  const kept = Object.keys(next).filter((key) => next[key] !== undefined);
  let i = 0;
  for (const key in base) {
    if (base[key] === undefined || next[key] === undefined) continue;
    if (kept[i] !== key) return false;
    i++;
  }
  for (; i < kept.length; i++) if (base[kept[i]!] !== undefined) return false;
  return true;
}

/** Sets an own field (a `__proto__` field stays a field; a changed field keeps its place). */
export function setField(target: Json, field: string, value: unknown): void {
  Object.defineProperty(target, field, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** The changes that make `next` of `base` (whose fields fit, see `fieldsFit`), if any. */
function changesOf(base: Json, next: Json): Changes | undefined {
  let out: Changes | undefined;
  const add = (field: string, change: unknown) => setField((out ??= {}), field, change);
  for (const key in base) {
    if (base[key] !== undefined && next[key] === undefined) add(key, []);
  }
  for (const key in next) {
    const value = next[key];
    const before = base[key];
    if (value === before || value === undefined) continue;
    if (isObject(value) && isObject(before) && fieldsFit(before, value)) {
      const inner = changesOf(before, value);
      if (inner) add(key, inner);
    } else if (!(Array.isArray(value) && sameJson(value, before))) {
      add(key, [value]);
    }
  }
  return out;
}

const hasRun = (envelope: WrittenEnvelope): boolean => {
  const snapshot = envelope.record.snapshot;
  const children = isObject(snapshot) ? snapshot['children'] : undefined;
  return isObject(children) && children['run'] !== undefined;
};

/** Whether `next` may be stored as changes to `base`: a session at rest is stored whole. */
const mayStoreChanges = (base: WrittenEnvelope, next: WrittenEnvelope): boolean =>
  next.record.status === 'active' && (hasRun(next) || !hasRun(base));

/**
 * How to store `envelope` for `key`: its changes since `base` when that is allowed and small
 * enough, else the whole envelope (its record's info given as JSON, `envelopeJson`), the next
 * saves' base. `put` is the one value to write; a whole write must also delete changes still
 * stored (the caller knows whether there are any).
 */
export function encodeRecord(
  key: SessionKey,
  envelope: WrittenEnvelope,
  base: RecordBase | undefined,
  infoJson: string,
): { put: KvOp; stored: StoredRecord } {
  if (base && mayStoreChanges(base.envelope, envelope) && fieldsFit(base.envelope, envelope)) {
    const changes = changesOf(base.envelope, envelope) ?? {};
    const seal = sealOf(base.raw)!;
    const value: StoredChanges = {
      base: seal,
      version: base.envelope.record.version,
      changes,
      ...changeCounts(changes),
    };
    const json = JSON.stringify(value);
    if (json.length <= base.jsonLength * MAX_CHANGES_SHARE) {
      const changesKey = keys.recordChangesKey(key);
      const changes = sealValue(changesKey, json);
      return {
        put: { type: 'put', key: changesKey, value: changes },
        stored: { raw: base.raw, changes, base },
      };
    }
  }
  const recordKey = keys.recordKey(key);
  const json = envelopeJson(envelope, infoJson);
  const raw = sealValue(recordKey, json);
  return {
    put: { type: 'put', key: recordKey, value: raw },
    stored: { raw, changes: undefined, base: { envelope, raw, jsonLength: json.length } },
  };
}
