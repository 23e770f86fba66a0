import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { ScheduleRecord } from '../schedule-store.js';
import { ScheduleRecordSchema, scheduleJson, scheduleRead } from '../schedule-schemas.js';
import * as keys from '../session-keys.js';
import { checkBeforeWrite, decodeStored } from '../session-schemas.js';

/**
 * The stored form of a schedule in PostgreSQL: a row of `agentstate_schedules` whose `record` is
 * the record's JSON under the seal of its logical key `sch!<owner>!<id>` (a row copied to another
 * user or id fails its seal), beside the columns its statements filter on (`version`, `due_at`),
 * which must agree with it; and the cursor of the next-tick index, a row's position in it.
 */

const DUE_DIGITS = 16;

/** A schedule's row as the statements read it. */
export interface ScheduleRow {
  owner: string;
  id: string;
  version: number;
  due_at: string | null;
  record: string;
}

/** The logical key a schedule's record is sealed under: `sch!<owner>!<id>`. */
export function scheduleKey(owner: string, id: string): string {
  return `sch!${owner}!${keys.encodeKeyPart(id, 'schedule id')}`;
}

/** A record checked before a write (`TypeError`: the runtime checked it first), as JSON keeps it. */
export function checkedRecord(record: ScheduleRecord): ScheduleRecord {
  checkBeforeWrite('schedule', record, ScheduleRecordSchema);
  return scheduleJson(record);
}

/** A schedule id given to a read or a delete: a non-empty string (`TypeError` otherwise). */
export function checkedId(call: string, id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new TypeError(`${call}: a schedule id must be a non-empty string`);
  }
  keys.encodeKeyPart(id, 'schedule id');
  return id;
}

/**
 * A row read back: its seal (under its owner and id), its shape (`ScheduleRecordSchema`) and its
 * columns checked against the record; a mismatch is `InvalidSessionRecordError` naming its key.
 */
export function decodeRow(row: ScheduleRow): ScheduleRecord {
  const key = scheduleKey(row.owner, row.id);
  const record = scheduleRead(decodeStored(key, row.record, ScheduleRecordSchema));
  const dueAt = row.due_at === null ? undefined : Number(row.due_at);
  if (
    record.id !== row.id ||
    keys.ownerPart(record.userId) !== row.owner ||
    record.version !== row.version ||
    record.dueAt !== dueAt
  ) {
    throw new InvalidSessionRecordError(key, 'schedule does not match its row');
  }
  return record;
}

/** The index position of a row: `<due_at, 16 digits>!<owner>!<encoded id>` (the cursor form). */
export function cursorOf(row: ScheduleRow): string {
  const due = String(row.due_at ?? '').padStart(DUE_DIGITS, '0');
  return `${due}!${row.owner}!${encodeURIComponent(row.id).replaceAll('!', '%21')}`;
}

/** (due_at, owner, id) of a cursor (`cursorOf`); `TypeError` for any other text. */
export function cursorParts(after: string): [number, string, string] {
  const parts = typeof after === 'string' ? after.split('!') : [];
  const due = Number(parts[0]);
  const problem = () =>
    new TypeError(`dueSchedules: "after" is not a cursor of this index: ${String(after)}`);
  if (parts.length !== 3 || parts[0]!.length !== DUE_DIGITS || !Number.isSafeInteger(due)) {
    throw problem();
  }
  try {
    keys.userOfOwnerPart(parts[1]!);
    return [due, parts[1]!, decodeURIComponent(parts[2]!)];
  } catch {
    throw problem();
  }
}
