import type pg from 'pg';
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
  scheduleListLimit,
  storedSchedule,
} from '../schedule-values.js';
import * as keys from '../session-keys.js';
import { auditInsert, auditValues } from './postgres-audit.js';
import type { PostgresDatabase } from './postgres-database.js';
import {
  cursorOf,
  cursorParts,
  decodeRow,
  scheduleKey,
  type ScheduleRow,
} from './postgres-schedule-rows.js';

/**
 * The statements of the schedules (`agentstate_schedules`), built once per store. Each write is
 * one statement: the row and the audit entry that records it (a CTE guarded by the row's
 * write), and, when nothing was written, the version the row holds (read in the statement's
 * snapshot: `null` when gone) to tell a conflict from a missing schedule.
 */
function scheduleStatements(t: (table: string) => string) {
  const schedules = t('agentstate_schedules');
  const audit = t('agentstate_audit');
  const outcome = (cte: string) =>
    `SELECT (SELECT count(*) FROM ${cte})::int AS written,
       (SELECT version FROM ${schedules} WHERE owner = $1 AND id = $2) AS current`;
  return {
    /** $1 owner, $2 id, $3 due_at (or null), $4 record, $5-$10 the audit entries. */
    create: `WITH w AS (
        INSERT INTO ${schedules} (owner, id, version, due_at, record)
        VALUES ($1, $2, 1, $3::bigint, $4) ON CONFLICT (owner, id) DO NOTHING RETURNING 1
      ), ${auditInsert(audit, 5, 'w')}
      ${outcome('w')}`,
    /** $1 owner, $2 id, $3 version read, $4 due_at (or null), $5 record, $6-$11 the audit entries. */
    save: `WITH w AS (
        UPDATE ${schedules} SET version = $3 + 1, due_at = $4::bigint, record = $5
        WHERE owner = $1 AND id = $2 AND version = $3 RETURNING 1
      ), ${auditInsert(audit, 6, 'w')}
      ${outcome('w')}`,
    /** $1 owner, $2 id, $3 version read, $4-$9 the audit entries. */
    delete: `WITH w AS (
        DELETE FROM ${schedules} WHERE owner = $1 AND id = $2 AND version = $3 RETURNING 1
      ), ${auditInsert(audit, 4, 'w')}
      ${outcome('w')}`,
    /** $1 owner, $2 id. */
    get: `SELECT owner, id, version, due_at, record FROM ${schedules} WHERE owner = $1 AND id = $2`,
    /** $1 owner, $2 the id after which the page starts (or null), $3 limit. */
    list: `SELECT owner, id, version, due_at, record FROM ${schedules}
        WHERE owner = $1 AND ($2::text IS NULL OR id > $2::text) ORDER BY id LIMIT $3`,
    /**
     * $1 until, $2-$4 the cursor's (due_at, owner, id) or nulls, $5 limit: the due rows of the
     * index in (due_at, owner, id) order, each beside `next` (the earliest due_at after
     * `until`); one row of nulls but `next` when none is due. Both are reads of the partial
     * index on (due_at, owner, id).
     */
    due: `SELECT n.next, p.owner, p.id, p.version, p.due_at, p.record
      FROM (SELECT min(due_at) AS next FROM ${schedules} WHERE due_at > $1) AS n
      LEFT JOIN LATERAL (
        SELECT owner, id, version, due_at, record FROM ${schedules}
        WHERE due_at IS NOT NULL AND due_at <= $1
          AND ($2::bigint IS NULL OR (due_at, owner, id) > ($2::bigint, $3::text, $4::text))
        ORDER BY due_at, owner, id LIMIT $5
      ) AS p ON true
      ORDER BY p.due_at, p.owner, p.id`,
  };
}

interface WriteRow {
  written: number;
  current: number | null;
}

/**
 * The schedules of a PostgreSQL store (`ScheduleStore`): table `agentstate_schedules`, one row
 * per `(owner, id)` holding the sealed record (JSON under the seal of its logical key
 * `sch!<owner>!<id>`: a row copied to another user or id fails its seal), its `version` (the
 * compare-and-set of every write) and `due_at`, the next-tick index (a partial index on
 * `(due_at, owner, id)`, so the scheduler's read is an index range read over every user).
 *
 * Statements per call (what the bench counts): one each for `createSchedule`, `saveSchedule`,
 * `deleteSchedule` (the write and its audit entry, and the version found when it wrote nothing),
 * `getSchedule`, `listSchedules` and `dueSchedules` (the page and `next`); a write refused on a
 * row locked by a racing writer reads the version once more.
 */
export class PostgresSchedules implements ScheduleStore {
  private readonly sql: ReturnType<typeof scheduleStatements>;

  constructor(private readonly db: PostgresDatabase) {
    this.sql = scheduleStatements(db.table);
  }

  async createSchedule(record: ScheduleRecord, audit: AuditEntry): Promise<ScheduleRecord> {
    const { userId, id } = checkedScheduleKey(record, 'createSchedule');
    const owner = keys.ownerPart(userId);
    const stored = storedSchedule(scheduleKey(owner, id), { ...record, version: 1 });
    const dueAt = stored.record.dueAt ?? null;
    const values = [owner, id, dueAt, stored.value, ...auditValues([audit])];
    const row = await this.write('create a schedule', () => this.sql.create, values);
    if (row.written !== 1) throw new ScheduleExistsError(id);
    this.db.count(values);
    return stored.record;
  }

  async getSchedule(key: ScheduleKey): Promise<ScheduleRecord | undefined> {
    const { userId, id } = checkedScheduleKey(key, 'getSchedule');
    const { rows } = await this.db.query<ScheduleRow>('read a schedule', {}, () => this.sql.get, [
      keys.ownerPart(userId),
      id,
    ]);
    return rows[0] && decodeRow(rows[0]);
  }

  async listSchedules(query: ListSchedulesQuery): Promise<SchedulePage> {
    const limit = scheduleListLimit(query);
    const { userId, cursor } = query;
    checkScheduleUser('listSchedules', userId);
    if (cursor !== undefined && (typeof cursor !== 'string' || cursor === '')) {
      throw new TypeError('listSchedules: cursor must be the nextCursor of a previous page');
    }
    const { rows } = await this.db.query<ScheduleRow>('list schedules', {}, () => this.sql.list, [
      keys.ownerPart(userId),
      cursor ?? null,
      limit + 1,
    ]);
    const schedules = rows.slice(0, limit).map(decodeRow);
    return {
      schedules,
      nextCursor: rows.length > limit ? schedules.at(-1)?.id : undefined,
    };
  }

  async saveSchedule(
    record: ScheduleRecord,
    audit: AuditEntry | undefined,
  ): Promise<ScheduleRecord> {
    const { userId, id } = checkedScheduleKey(record, 'saveSchedule');
    const owner = keys.ownerPart(userId);
    const read = record.version;
    const stored = storedSchedule(scheduleKey(owner, id), { ...record, version: read + 1 });
    const dueAt = stored.record.dueAt ?? null;
    const values = [owner, id, read, dueAt, stored.value, ...auditValues(audit && [audit])];
    const row = await this.write('save a schedule', () => this.sql.save, values);
    if (row.written !== 1) await this.refused(owner, id, read, row);
    this.db.count(values);
    return stored.record;
  }

  async deleteSchedule(key: ScheduleKey, version: number, audit: AuditEntry): Promise<void> {
    const { userId, id } = checkedScheduleKey(key, 'deleteSchedule');
    const owner = keys.ownerPart(userId);
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new TypeError(`deleteSchedule: version must be a positive integer, got ${version}`);
    }
    const values = [owner, id, version, ...auditValues([audit])];
    const row = await this.write('delete a schedule', () => this.sql.delete, values);
    if (row.written !== 1) await this.refused(owner, id, version, row);
    this.db.count(values);
  }

  async dueSchedules(query: DueSchedulesQuery): Promise<DueSchedules> {
    checkDueQuery(query);
    const { until, after, limit } = query;
    const from = after === undefined ? [null, null, null] : cursorParts(after);
    const { rows } = await this.db.query<ScheduleRow & { next: string | null }>(
      'read due schedules',
      {},
      () => this.sql.due,
      [until, ...from, limit + 1],
    );
    const page: DueSchedules = { due: [], damaged: [], cursor: undefined, next: undefined };
    const found = rows.filter((row) => row.id !== null);
    for (const row of found.slice(0, limit)) {
      try {
        page.due.push(decodeRow(row));
      } catch (error) {
        page.damaged.push(
          error instanceof InvalidSessionRecordError
            ? error
            : new InvalidSessionRecordError(cursorOf(row), `not a schedule row (${String(error)})`),
        );
      }
    }
    if (found.length > limit) {
      page.cursor = cursorOf(found[limit - 1]!);
      return page;
    }
    const next = rows[0]?.next;
    page.next = next === null || next === undefined ? undefined : Number(next);
    return page;
  }

  /** Runs one write statement; its one row tells whether it wrote and the version it found. */
  private async write(operation: string, text: () => string, values: unknown[]) {
    const { rows } = await this.db.query<WriteRow>(operation, {}, text, values);
    return rows[0] ?? { written: 0, current: null };
  }

  /**
   * Throws what refused a save or delete of `(owner, id)` at `version`: gone, or another
   * version. A racing writer that held the row when the statement began leaves it at the
   * version read (the statement's snapshot) though the update found another: read it again.
   */
  private async refused(owner: string, id: string, version: number, row: WriteRow): Promise<never> {
    let current = row.current;
    if (current === version) {
      const { rows } = await this.db.query<ScheduleRow>('read a schedule', {}, () => this.sql.get, [
        owner,
        id,
      ]);
      current = rows[0]?.version ?? null;
    }
    if (current === null) throw new ScheduleNotFoundError(id);
    throw new ScheduleConflictError(id, version, current);
  }
}

/**
 * Schema version 10: the schedules' table and its next-tick index (partial: only rows with a
 * `due_at` are in it, in the order the scheduler reads them).
 */
export function addScheduleTable(
  client: pg.ClientBase,
  t: (name: string) => string,
): Promise<unknown> {
  const schedules = t('agentstate_schedules');
  return client.query(`
    CREATE TABLE ${schedules} (
      owner text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      due_at bigint,
      record text NOT NULL,
      PRIMARY KEY (owner, id)
    );
    CREATE INDEX agentstate_schedules_due ON ${schedules} (due_at, owner, id)
      WHERE due_at IS NOT NULL;
  `);
}
