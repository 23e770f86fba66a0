import { InvalidSessionRecordError } from '../errors/session-errors.js';
import type {
  DueSchedulesQuery,
  ListSchedulesQuery,
  ScheduleKey,
  ScheduleRecord,
} from './schedule-store.js';
import { ScheduleRecordSchema, scheduleJson, scheduleRead } from './schedule-schemas.js';
import { checkBeforeWrite, decodeStored, encodeStored } from './session-schemas.js';

/**
 * Schedules as a store writes and reads them, whatever it keeps them in: the record checked by
 * `ScheduleRecordSchema` before it is written (a `TypeError`: the runtime checked it first) and
 * sealed at its key; read back with its seal, its shape and its key checked
 * (`InvalidSessionRecordError` naming the key); and the checks of the two reads' arguments.
 */

export const DEFAULT_SCHEDULE_LIMIT = 50;
export const MAX_SCHEDULE_LIMIT = 1000;

/** A record checked before it is written, sealed at `key`, and as it reads back. */
export function storedSchedule(
  key: string,
  record: ScheduleRecord,
): { value: string; record: ScheduleRecord } {
  const checked = checkBeforeWrite('schedule', scheduleJson(record), ScheduleRecordSchema);
  return { value: encodeStored(key, checked), record: scheduleRead(checked) };
}

/** A stored record read at `key`, which must be the schedule `expected`'s. */
export function decodeSchedule(key: string, raw: string, expected: ScheduleKey): ScheduleRecord {
  const record = scheduleRead(decodeStored(key, raw, ScheduleRecordSchema));
  if (record.id !== expected.id || record.userId !== expected.userId) {
    throw new InvalidSessionRecordError(key, 'schedule does not belong to its key');
  }
  return record;
}

/** A caller's user id, checked (`TypeError`): a non-empty string, or `undefined` (anonymous). */
export function checkScheduleUser(call: string, userId: unknown): void {
  if (userId !== undefined && (typeof userId !== 'string' || userId === '')) {
    throw new TypeError(`${call}: userId must be a non-empty string or undefined`);
  }
}

/** A caller's schedule key, checked (`TypeError`), as a plain `{ userId, id }`. */
export function checkedScheduleKey(key: ScheduleKey, call: string): ScheduleKey {
  if (typeof key !== 'object' || key === null || typeof key.id !== 'string' || key.id === '') {
    throw new TypeError(`${call}: id must be a non-empty string`);
  }
  checkScheduleUser(call, key.userId);
  return { userId: key.userId, id: key.id };
}

/** The page size of `listSchedules` (default 50, at most 1,000; else a `TypeError`). */
export function scheduleListLimit(query: ListSchedulesQuery): number {
  const limit = query.limit ?? DEFAULT_SCHEDULE_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SCHEDULE_LIMIT) {
    throw new TypeError(
      `listSchedules: limit must be an integer from 1 to ${MAX_SCHEDULE_LIMIT}, got ${String(limit)}`,
    );
  }
  return limit;
}

/** Checks a `dueSchedules` query's `until` and `limit` (`TypeError`). */
export function checkDueQuery(query: DueSchedulesQuery): void {
  if (!Number.isSafeInteger(query.until) || query.until < 0) {
    throw new TypeError(
      `dueSchedules: until must be epoch milliseconds, got ${String(query.until)}`,
    );
  }
  if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
    throw new TypeError(
      `dueSchedules: limit must be a positive integer, got ${String(query.limit)}`,
    );
  }
}
