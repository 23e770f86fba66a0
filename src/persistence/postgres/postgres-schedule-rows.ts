import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { ScheduleRecord } from '../schedule-store.js';
import { decodeSchedule } from '../schedule-values.js';
import * as keys from '../session-keys.js';

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

/**
 * A row read back: its seal (under its owner and id), its shape (`ScheduleRecordSchema`), its
 * owner and id, and its columns checked against the record; a mismatch is
 * `InvalidSessionRecordError` naming its key.
 */
export function decodeRow(row: ScheduleRow): ScheduleRecord {
  const key = scheduleKey(row.owner, row.id);
  let userId: string | undefined;
  try {
    userId = keys.userOfOwnerPart(row.owner);
  } catch {
    throw new InvalidSessionRecordError(key, 'not a schedule owner');
  }
  const record = decodeSchedule(key, row.record, { userId, id: row.id });
  const dueAt = row.due_at === null ? undefined : Number(row.due_at);
  if (record.version !== row.version || record.dueAt !== dueAt) {
    throw new InvalidSessionRecordError(key, 'schedule does not match its row');
  }
  return record;
}

/** The index position of a row: `<due_at, 16 digits>!<owner>!<encoded id>` (the cursor form). */
export function cursorOf(row: ScheduleRow): string {
  const due = String(row.due_at ?? '').padStart(DUE_DIGITS, '0');
  return `${due}!${row.owner}!${keys.escapeKeyPart(row.id, 'schedule id')}`;
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
