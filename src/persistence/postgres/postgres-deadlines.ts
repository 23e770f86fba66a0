import type pg from 'pg';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { SessionRecordCodec } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import type { DeadlineEntry, DueApprovals, DueApprovalsQuery } from '../approval-deadlines.js';
import { decodeRecordAt } from '../stored-reads.js';
import type { PostgresDatabase } from './postgres-database.js';
import { md5 } from './postgres-rows.js';

/** The deadline index's statements (on the sessions table), built once per store (table names qualified with its schema). */
function deadlineStatements(t: (table: string) => string) {
  return {
    /**
     * $1 until, $2-$4 the cursor's (deadline, owner, session) or nulls, $5 limit: due entries of
     * the deadline index, every owner, in deadline order.
     */
    due: `SELECT owner, session_id, approval_deadline FROM ${t('agentstate_sessions')}
        WHERE approval_deadline IS NOT NULL AND approval_deadline <= $1
          AND ($2::bigint IS NULL
            OR (approval_deadline, owner, session_id) > ($2::bigint, $3::text, $4::text))
        ORDER BY approval_deadline, owner, session_id LIMIT $5`,
    /** $1 until: the earliest deadline after it. */
    next: `SELECT min(approval_deadline) AS next FROM ${t('agentstate_sessions')}
        WHERE approval_deadline > $1`,
    /** $1 owner, $2 session: the record and the deadline it is filed under. */
    deadlineOf: `SELECT record, approval_deadline FROM ${t('agentstate_sessions')}
        WHERE owner = $1 AND session_id = $2`,
    /** $1 owner, $2 session, $3 deadline (or null), $4 md5 of the record it was read from. */
    setDeadline: `UPDATE ${t('agentstate_sessions')} SET approval_deadline = $3::bigint
        WHERE owner = $1 AND session_id = $2 AND md5(record) = $4`,
  };
}

/**
 * The approval-deadline index on PostgreSQL: the `approval_deadline` column of a session's row,
 * written by the same statement as its record (create and save), so it can never disagree with
 * the record a step wrote. A partial index on `(approval_deadline, owner, session_id)` makes the
 * scheduler's scan (every owner, in deadline order) an index range scan. An entry's `indexKey`
 * is the key-value stores' `d!<deadline>!<owner>!<sid>`, so cursors and error keys read alike.
 */
export class PostgresDeadlines {
  private readonly sql: ReturnType<typeof deadlineStatements>;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly codec: SessionRecordCodec,
  ) {
    this.sql = deadlineStatements(db.table);
  }

  async dueApprovals(query: DueApprovalsQuery): Promise<DueApprovals> {
    const { until, after, limit } = query;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new TypeError(`dueApprovals: limit must be a positive integer, got ${limit}`);
    }
    if (!Number.isSafeInteger(until)) {
      throw new TypeError(`dueApprovals: until must be an epoch-ms integer, got ${until}`);
    }
    const from = after === undefined ? [null, null, null] : cursorParts(after);
    const { rows } = await this.db.query<DeadlineRow>(
      'scan approval deadlines',
      {},
      () => this.sql.due,
      [until, ...from, limit + 1],
    );
    const page: DueApprovals = { due: [], damaged: [], cursor: undefined, next: undefined };
    for (const row of rows.slice(0, limit)) {
      const deadline = Number(row.approval_deadline);
      try {
        const key: SessionKey = {
          sessionId: row.session_id,
          userId: keys.userOfOwnerPart(row.owner),
        };
        page.due.push({ key, deadline, indexKey: keys.deadlineKey(key, deadline) });
      } catch (error) {
        page.damaged.push(
          new InvalidSessionRecordError(cursorOf(row), `not a session owner (${String(error)})`),
        );
      }
    }
    if (rows.length > limit) {
      page.cursor = page.due.at(-1)?.indexKey ?? cursorOf(rows[limit - 1]!);
      return page;
    }
    const later = await this.db.query<{ next: string | null }>(
      'scan approval deadlines',
      {},
      () => this.sql.next,
      [until],
    );
    const next = later.rows[0]?.next;
    page.next = next === null || next === undefined ? undefined : Number(next);
    return page;
  }

  /**
   * Clears the column when the session's record does not hold `entry.deadline` (a hand edit, a
   * backfill of a damaged record): true if it was stale. The update applies only to the record
   * text it checked, so a step saved meanwhile is never undone.
   */
  async dropStaleDeadline(entry: DeadlineEntry): Promise<boolean> {
    const { key, deadline } = entry;
    const owner = keys.ownerPart(key.userId);
    const { rows } = await this.db.query<{ record: string; approval_deadline: string | null }>(
      'drop a stale approval deadline',
      key,
      () => this.sql.deadlineOf,
      [owner, key.sessionId],
    );
    const row = rows[0];
    if (!row || row.approval_deadline === null || Number(row.approval_deadline) !== deadline) {
      return true; // the row no longer files the session under this deadline
    }
    const held = decodeRecordAt(this.codec, key, row.record).approvalDeadline;
    if (held === deadline) return false;
    await this.db.query('drop a stale approval deadline', key, () => this.sql.setDeadline, [
      owner,
      key.sessionId,
      held ?? null,
      md5(row.record),
    ]);
    return true;
  }
}

interface DeadlineRow {
  owner: string;
  session_id: string;
  approval_deadline: string;
}

function cursorOf(row: DeadlineRow): string {
  const deadline = String(row.approval_deadline).padStart(16, '0');
  return `d!${deadline}!${row.owner}!${keys.encodeKeyPart(row.session_id)}`;
}

/** (deadline, owner, session id) of an index key given as a cursor; `TypeError` otherwise. */
function cursorParts(after: string): [number, string, string] {
  const deadline = keys.deadlineOfKey(after);
  const rest = after.slice('d!'.length + 16 + 1).split('!');
  if (Number.isNaN(deadline) || rest.length !== 2 || !rest[0] || !rest[1]) {
    throw new TypeError(`dueApprovals: "after" is not a cursor of this index: ${after}`);
  }
  try {
    return [deadline, rest[0], decodeURIComponent(rest[1])];
  } catch {
    throw new TypeError(`dueApprovals: "after" is not a cursor of this index: ${after}`);
  }
}

const BACKFILL_PAGE = 500;

/**
 * Schema version 2: adds the `approval_deadline` column and its index, and fills it from the
 * records already stored (a record that does not parse is left unindexed: reading it reports
 * the damage). Runs inside the migrating transaction.
 */
export async function addApprovalDeadlines(
  client: pg.ClientBase,
  t: (name: string) => string,
): Promise<void> {
  const sessions = t('agentstate_sessions');
  await client.query(`
    ALTER TABLE ${sessions} ADD COLUMN approval_deadline bigint;
    CREATE INDEX agentstate_sessions_deadline ON ${sessions} (approval_deadline, owner, session_id)
      WHERE approval_deadline IS NOT NULL;
  `);
  let after: [string, string] = ['', ''];
  for (;;) {
    const { rows } = await client.query<{ owner: string; session_id: string; record: string }>(
      `SELECT owner, session_id, record FROM ${sessions}
       WHERE (owner, session_id) > ($1, $2) AND strpos(record, '"approvalDeadline":') > 0
       ORDER BY owner, session_id LIMIT ${BACKFILL_PAGE}`,
      after,
    );
    const found = rows.flatMap((row) => {
      const deadline = storedDeadline(row.record);
      return deadline === undefined ? [] : [{ ...row, deadline }];
    });
    if (found.length > 0) {
      await client.query(
        `UPDATE ${sessions} AS s SET approval_deadline = f.deadline
         FROM unnest($1::text[], $2::text[], $3::bigint[]) AS f(owner, session_id, deadline)
         WHERE s.owner = f.owner AND s.session_id = f.session_id`,
        [found.map((f) => f.owner), found.map((f) => f.session_id), found.map((f) => f.deadline)],
      );
    }
    const last = rows.at(-1);
    if (!last || rows.length < BACKFILL_PAGE) return;
    after = [last.owner, last.session_id];
  }
}

/** The `approvalDeadline` of a stored record envelope's text, if it parses and holds one. */
function storedDeadline(text: string): number | undefined {
  try {
    const json = text.startsWith('#') ? text.slice(9) : text;
    const envelope = JSON.parse(json) as { record?: { approvalDeadline?: unknown } };
    const deadline = envelope.record?.approvalDeadline;
    return Number.isSafeInteger(deadline) && (deadline as number) >= 0
      ? (deadline as number)
      : undefined;
  } catch {
    return undefined;
  }
}
