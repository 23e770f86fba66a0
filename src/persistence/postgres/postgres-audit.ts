import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import {
  auditKey,
  auditMatches,
  auditPosition,
  checkAuditQuery,
  decodeAuditAt,
  storedAudit,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
} from '../audit-log.js';
import { ownerPart } from '../session-keys.js';
import type { PostgresDatabase } from './postgres-database.js';

/**
 * The audit log of the PostgreSQL store: table `agentstate_audit`, keyed
 * `(owner, at, id)` like the key-value stores' `a!<owner>!<at>!<id>`, written by a CTE of the
 * statement whose step it records (create, save, purge) and read one owner at a time.
 */

/** The six parameter arrays of a statement's audit insert: owners, ats, ids, sessions, kinds, entries. */
export function auditValues(entries: readonly AuditEntry[] | undefined): unknown[][] {
  const stored = (entries ?? []).map(storedAudit);
  return [
    stored.map((s) => ownerPart(s.entry.userId)),
    stored.map((s) => s.entry.at),
    stored.map((s) => s.entry.id),
    stored.map((s) => s.entry.sessionId),
    stored.map((s) => s.entry.kind),
    stored.map((s) => s.value),
  ];
}

/**
 * The CTE inserting a statement's audit entries from parameters `$first` .. `$first + 5`
 * (see {@link auditValues}), only when the statement's `guard` CTE returned a row.
 */
export function auditInsert(table: string, first: number, guard: string): string {
  const p = (i: number): string => `$${first + i}`;
  return `au AS (
        INSERT INTO ${table} (owner, at, id, session_id, kind, entry)
        SELECT a.owner, a.at, a.id, a.session_id, a.kind, a.entry
        FROM ${guard}, unnest(${p(0)}::text[], ${p(1)}::bigint[], ${p(2)}::text[], ${p(3)}::text[],
          ${p(4)}::text[], ${p(5)}::text[]) AS a(owner, at, id, session_id, kind, entry)
      )`;
}

/** The DDL of the audit table (schema version 2). */
export function auditTable(t: (name: string) => string): string {
  return `
    CREATE TABLE ${t('agentstate_audit')} (
      owner text COLLATE "C" NOT NULL,
      at bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      session_id text COLLATE "C" NOT NULL,
      kind text NOT NULL,
      entry text NOT NULL,
      PRIMARY KEY (owner, at, id)
    );
    CREATE INDEX ON ${t('agentstate_audit')} (owner, session_id, at, id);
  `;
}

/**
 * $1 owner, $2 session (or null), $3 kinds[] (or null), $4 from, $5 to (or null),
 * $6 cursor at, $7 cursor id (or null), $8 limit.
 */
export function auditSelect(table: string): string {
  return `SELECT at, id, entry FROM ${table}
    WHERE owner = $1 AND ($2::text IS NULL OR session_id = $2::text)
      AND ($3::text[] IS NULL OR kind = ANY($3::text[]))
      AND at >= $4 AND ($5::bigint IS NULL OR at < $5::bigint)
      AND ($7::text IS NULL OR (at, id) > ($6::bigint, $7::text))
    ORDER BY at, id LIMIT $8`;
}

/** The parameters of {@link auditSelect} for a query (checked: `TypeError` naming the field). */
export function auditSelectValues(query: AuditQuery): { values: unknown[]; limit: number } {
  const { limit, kinds } = checkAuditQuery(query);
  const [at, id] = query.cursor === undefined ? [0, null] : splitCursor(query.cursor);
  return {
    limit,
    values: [
      ownerPart(query.userId),
      query.sessionId ?? null,
      kinds ? [...kinds] : null,
      query.from ?? 0,
      query.to ?? null,
      at,
      id,
      limit + 1,
    ],
  };
}

/** The page of entries read by {@link auditSelect}, each checked against its key. */
export function auditPageOf(
  query: AuditQuery,
  limit: number,
  rows: readonly { at: string | number; id: string; entry: string }[],
): AuditPage {
  const { kinds } = checkAuditQuery(query);
  const entries = rows.slice(0, limit).map((row) => {
    const key = auditKey({ userId: query.userId, at: Number(row.at), id: row.id });
    const entry = decodeAuditAt(key, row.entry, query.userId);
    if (!auditMatches(entry, query, kinds)) {
      throw new InvalidSessionRecordError(key, 'entry does not match its columns');
    }
    return entry;
  });
  const last = entries[entries.length - 1];
  return {
    entries,
    nextCursor: rows.length > limit && last ? auditPosition(last.at, last.id) : undefined,
  };
}

function splitCursor(cursor: string): [number, string] {
  const at = Number(cursor.slice(0, 16));
  return [at, decodeURIComponent(cursor.slice(17))];
}

/** A page of one owner's audit entries, checked (see `SessionStore.readAudit`). */
export async function readPostgresAudit(
  db: PostgresDatabase,
  query: AuditQuery,
): Promise<AuditPage> {
  const { values, limit } = auditSelectValues(query);
  const { rows } = await db.query<{ at: string; id: string; entry: string }>(
    'read the audit log',
    {},
    () => db.sql.audit(),
    values,
  );
  return auditPageOf(query, limit, rows);
}
