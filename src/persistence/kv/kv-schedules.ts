import { z } from 'zod';
import {
  ScheduleConflictError,
  ScheduleExistsError,
  ScheduleNotFoundError,
} from '../../errors/schedule-errors.js';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { AuditEntry } from '../audit-log.js';
import type {
  DueSchedules,
  DueSchedulesQuery,
  ListSchedulesQuery,
  ScheduleKey,
  SchedulePage,
  ScheduleRecord,
  ScheduleStore,
} from '../schedule-store.js';
import {
  checkDueQuery,
  checkScheduleUser,
  checkedScheduleKey,
  decodeSchedule,
  scheduleListLimit,
  storedSchedule,
} from '../schedule-values.js';
import { decodeStored, encodeStored } from '../session-schemas.js';
import { getAll, type KvBackend, type KvOp, type KvReader } from './backends/kv-backend.js';
import { auditOps } from './kv-audit.js';
import * as keys from './schedule-keys.js';
import type { WriteQueue } from './write-queue.js';

/** A schedule's write that failed to be written: the backend's error as it is. */
const asIs = (error: unknown): unknown => error;

/** A next-tick index entry's value: which schedule, filed under which `dueAt`. */
const IndexEntrySchema = z.lazy(() =>
  z.strictObject({
    userId: z.string().min(1).optional(),
    id: z.string().min(1),
    dueAt: z.number().int().nonnegative(),
  }),
);

/** The ops that move a schedule's index entry from `before` to `after` (none if unchanged). */
function indexOps(key: ScheduleKey, before: number | undefined, after: number | undefined): KvOp[] {
  if (before === after) return [];
  const ops: KvOp[] = [];
  if (before !== undefined) ops.push({ type: 'del', key: keys.scheduleIndexKey(key, before) });
  if (after !== undefined) {
    const indexKey = keys.scheduleIndexKey(key, after);
    const value = { userId: key.userId, id: key.id, dueAt: after };
    ops.push({ type: 'put', key: indexKey, value: encodeStored(indexKey, value) });
  }
  return ops;
}

/**
 * Schedules (`ScheduleStore`) in a key-value store (keys in `schedule-keys.ts`): every write one
 * atomic batch through the store's write queue (the record, its next-tick index entry moved, the
 * audit entry), its version checked in the queue against the store as the writes before it
 * leave it, so of writers racing at one version exactly one wins. `dueSchedules` reads the index
 * from its start, then the records it names: a damaged entry or record is reported, not thrown.
 */
export class KvSchedules implements ScheduleStore {
  constructor(
    private readonly backend: KvBackend,
    private readonly writes: WriteQueue,
  ) {}

  async createSchedule(record: ScheduleRecord, audit: AuditEntry): Promise<ScheduleRecord> {
    const key = checkedScheduleKey(record, 'createSchedule');
    const recordKey = keys.scheduleKey(key);
    const stored = storedSchedule(recordKey, { ...record, version: 1 });
    const ops: KvOp[] = [
      { type: 'put', key: recordKey, value: stored.value },
      ...indexOps(key, undefined, stored.record.dueAt),
      ...auditOps([audit]),
    ];
    return this.writes.run(async (view) => {
      if ((await view.get(recordKey)) !== undefined) throw new ScheduleExistsError(key.id);
      return { ops, written: () => stored.record };
    }, asIs);
  }

  async getSchedule(scheduleKey: ScheduleKey): Promise<ScheduleRecord | undefined> {
    const key = checkedScheduleKey(scheduleKey, 'getSchedule');
    const recordKey = keys.scheduleKey(key);
    const raw = await this.backend.get(recordKey);
    return raw === undefined ? undefined : decodeSchedule(recordKey, raw, key);
  }

  async listSchedules(query: ListSchedulesQuery): Promise<SchedulePage> {
    const limit = scheduleListLimit(query);
    const { userId, cursor } = query;
    checkScheduleUser('listSchedules', userId);
    if (cursor !== undefined && (typeof cursor !== 'string' || !/^[^!]+$/.test(cursor))) {
      throw new TypeError('listSchedules: cursor must be the nextCursor of a previous page');
    }
    const range = { ...keys.userSchedulesRange(userId, cursor), limit: limit + 1 };
    const schedules: ScheduleRecord[] = [];
    let last: string | undefined;
    let more = false;
    for await (const [recordKey, raw] of this.backend.iterate(range)) {
      if (schedules.length === limit) {
        more = true;
        break;
      }
      const id = keys.idOfScheduleKey(recordKey, userId);
      if (id === undefined) throw new InvalidSessionRecordError(recordKey, 'not a schedule key');
      schedules.push(decodeSchedule(recordKey, raw, { userId, id }));
      last = recordKey;
    }
    return {
      schedules,
      nextCursor: more && last ? keys.scheduleCursorOf(last, userId) : undefined,
    };
  }

  async saveSchedule(
    record: ScheduleRecord,
    audit: AuditEntry | undefined,
  ): Promise<ScheduleRecord> {
    const key = checkedScheduleKey(record, 'saveSchedule');
    const recordKey = keys.scheduleKey(key);
    const saved = storedSchedule(recordKey, { ...record, version: record.version + 1 });
    const audited = auditOps(audit && [audit]);
    return this.writes.run(async (view) => {
      const stored = await this.storedAt(view, recordKey, key, record.version);
      return {
        ops: [
          { type: 'put', key: recordKey, value: saved.value },
          // The index entry moves with the record, in the same batch (never out of step).
          ...indexOps(key, stored.dueAt, saved.record.dueAt),
          ...audited,
        ],
        written: () => saved.record,
      };
    }, asIs);
  }

  async deleteSchedule(
    scheduleKey: ScheduleKey,
    version: number,
    audit: AuditEntry,
  ): Promise<void> {
    const key = checkedScheduleKey(scheduleKey, 'deleteSchedule');
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new TypeError(
        `deleteSchedule: version must be a positive integer, got ${String(version)}`,
      );
    }
    const recordKey = keys.scheduleKey(key);
    const audited = auditOps([audit]);
    return this.writes.run(async (view) => {
      const stored = await this.storedAt(view, recordKey, key, version);
      return {
        ops: [
          { type: 'del', key: recordKey },
          ...indexOps(key, stored.dueAt, undefined),
          ...audited,
        ],
        written: () => undefined,
      };
    }, asIs);
  }

  async dueSchedules(query: DueSchedulesQuery): Promise<DueSchedules> {
    checkDueQuery(query);
    const { until, after, limit } = query;
    if (after !== undefined && !keys.isScheduleIndexKey(after)) {
      throw new TypeError('dueSchedules: after must be the cursor of a previous page');
    }
    const page: DueSchedules = { due: [], damaged: [], cursor: undefined, next: undefined };
    const entries: { indexKey: string; key: ScheduleKey; dueAt: number }[] = [];
    let last: string | undefined;
    let read = 0;
    const range = { ...keys.dueScheduleRange(until, after), limit: limit + 1 };
    for await (const [indexKey, raw] of this.backend.iterate(range)) {
      if (read === limit) {
        page.cursor = last;
        break;
      }
      read += 1;
      last = indexKey;
      try {
        entries.push(checkedEntry(indexKey, raw));
      } catch (error) {
        page.damaged.push(error as Error);
      }
    }
    const recordKeys = entries.map((entry) => keys.scheduleKey(entry.key));
    const raws = await getAll(this.backend, recordKeys);
    entries.forEach((entry, i) => {
      const raw = raws[i];
      try {
        if (raw === undefined) {
          throw new InvalidSessionRecordError(entry.indexKey, 'index entry without its schedule');
        }
        const record = decodeSchedule(recordKeys[i]!, raw, entry.key);
        if (record.dueAt !== entry.dueAt) {
          throw new InvalidSessionRecordError(
            recordKeys[i]!,
            'schedule differs from its index entry',
          );
        }
        page.due.push(record);
      } catch (error) {
        page.damaged.push(error as Error);
      }
    });
    if (page.cursor === undefined) page.next = await this.nextDue(until, page.damaged);
    return page;
  }

  /** The earliest `dueAt` after `until`: the first well-formed index key past it. */
  private async nextDue(until: number, damaged: Error[]): Promise<number | undefined> {
    let range = { ...keys.laterScheduleRange(until), limit: 1 };
    for (;;) {
      let found: string | undefined;
      for await (const indexKey of this.backend.keys(range)) found = indexKey;
      if (found === undefined) return undefined;
      const dueAt = keys.dueAtOfKey(found);
      if (!Number.isNaN(dueAt)) return dueAt;
      damaged.push(new InvalidSessionRecordError(found, 'not a schedule index key'));
      range = { ...range, gte: `${found}\u0000` };
    }
  }

  /** The stored record at `version`, read through `view` in the write queue. */
  private async storedAt(
    view: KvReader,
    recordKey: string,
    key: ScheduleKey,
    version: number,
  ): Promise<ScheduleRecord> {
    const raw = await view.get(recordKey);
    if (raw === undefined) throw new ScheduleNotFoundError(key.id);
    const stored = decodeSchedule(recordKey, raw, key);
    if (stored.version !== version) {
      throw new ScheduleConflictError(key.id, version, stored.version);
    }
    return stored;
  }
}

/** An index entry checked: its seal, its shape, and that it is filed under its own key. */
function checkedEntry(
  indexKey: string,
  raw: string,
): { indexKey: string; key: ScheduleKey; dueAt: number } {
  const value = decodeStored(indexKey, raw, IndexEntrySchema);
  const key = { userId: value.userId, id: value.id };
  if (keys.scheduleIndexKey(key, value.dueAt) !== indexKey) {
    throw new InvalidSessionRecordError(indexKey, 'entry does not belong to its key');
  }
  return { indexKey, key, dueAt: value.dueAt };
}
