import type { KvRange } from '../key-range.js';
import type { ScheduleKey } from '../schedule-store.js';
import { encodeKeyPart, keyAfter, ownerPart, prefixRange } from '../session-keys.js';

/**
 * Key layout of schedules in the key-value stores (parts encoded as session keys are, the owner
 * part `a` or `u:<userId>` of `session-keys.ts`):
 *
 * | key                                  | value                                       |
 * |--------------------------------------|---------------------------------------------|
 * | `k!<owner>!<id>`                     | a schedule (`ScheduleRecord`), by user      |
 * | `w!<dueAt, 16 digits>!<owner>!<id>`  | its next-tick index entry: user, id, dueAt  |
 *
 * A user's schedules are one range in id order (what `listSchedules` pages); the index is in
 * (`dueAt`, owner, id) order across users, so the due schedules are one range read from its
 * start (`dueSchedules`), never a scan of the records.
 */
const DUE_DIGITS = 16;
const RECORD_PREFIX = 'k!';
const INDEX_PREFIX = 'w!';

function ownerPrefix(userId: string | undefined): string {
  return `${RECORD_PREFIX}${ownerPart(userId)}!`;
}

/** The key of a schedule's record. */
export function scheduleKey(key: ScheduleKey): string {
  return `${ownerPrefix(key.userId)}${encodeKeyPart(key.id, 'schedule id')}`;
}

/** A user's schedules, in id order, after the cursor `after` (an encoded id) when given. */
export function userSchedulesRange(userId: string | undefined, after?: string): KvRange {
  const all = prefixRange(ownerPrefix(userId));
  return after === undefined ? all : { gte: keyAfter(all.gte + after), lt: all.lt };
}

/** The cursor of a page that ends at `recordKey` (the encoded id: opaque to the caller). */
export function scheduleCursorOf(recordKey: string, userId: string | undefined): string {
  return recordKey.slice(ownerPrefix(userId).length);
}

/** The schedule id a record key of `userId`'s names (`undefined`: not a record key's form). */
export function idOfScheduleKey(recordKey: string, userId: string | undefined): string | undefined {
  try {
    return decodeURIComponent(scheduleCursorOf(recordKey, userId));
  } catch {
    return undefined;
  }
}

function paddedDue(dueAt: number): string {
  if (!Number.isSafeInteger(dueAt) || dueAt < 0 || dueAt >= 10 ** DUE_DIGITS) {
    throw new TypeError(`dueAt must be an integer in [0, ${10 ** DUE_DIGITS}), got ${dueAt}`);
  }
  return String(dueAt).padStart(DUE_DIGITS, '0');
}

/** A schedule's entry in the next-tick index. */
export function scheduleIndexKey(key: ScheduleKey, dueAt: number): string {
  return `${INDEX_PREFIX}${paddedDue(dueAt)}!${ownerPart(key.userId)}!${encodeKeyPart(key.id, 'schedule id')}`;
}

/** Whether `text` is an index key (the `after` of a `dueSchedules` query). */
export function isScheduleIndexKey(text: unknown): text is string {
  return typeof text === 'string' && text.startsWith(INDEX_PREFIX);
}

/** Index entries with a `dueAt` at or before `until` (those after `after` when given). */
export function dueScheduleRange(until: number, after?: string): KvRange {
  const end = Math.min(until + 1, Number.MAX_SAFE_INTEGER);
  return {
    gte: after === undefined ? INDEX_PREFIX : keyAfter(after),
    lt: `${INDEX_PREFIX}${paddedDue(end)}`,
  };
}

/** Index entries with a `dueAt` after `until`. */
export function laterScheduleRange(until: number): KvRange {
  return { gte: dueScheduleRange(until).lt, lt: prefixRange(INDEX_PREFIX).lt };
}

/** The `dueAt` an index key is filed under (NaN for a key not of that form). */
export function dueAtOfKey(indexKey: string): number {
  const digits = indexKey.slice(INDEX_PREFIX.length, INDEX_PREFIX.length + DUE_DIGITS);
  return /^\d{16}$/.test(digits) && indexKey[INDEX_PREFIX.length + DUE_DIGITS] === '!'
    ? Number(digits)
    : Number.NaN;
}
