import { auditInsert, auditSelect } from './postgres-audit.js';
import { dequeueCte } from './postgres-messages.js';
import { ORDER_COLUMNS, orderColumn, positionsOf } from './postgres-list-orders.js';
import type { ListOrder } from '../entries/list-order.js';
import { kindCondition } from './postgres-list-kinds.js';
import type { ListKind } from '../entries/list-kind.js';

/**
 * The digest of a session a save notifies (`$1` owner, `$2` session id): md5 of
 * `${owner}!${sessionId}` in hex, short whatever the ids' length (a payload holds 8,000 bytes).
 */
const sessionDigestSql = `md5($1 || '!' || $2)`;

/**
 * The SQL text of the session store's own operations (sessions, history, journal, totals),
 * one statement per operation, built once per store (table names are qualified with the
 * store's schema, never taken from `search_path`). Leases, the deadline index, the decision
 * inbox and the audit log keep their statements beside the classes that run them. Parameters
 * are positional; no statement is named, so the pool may run each on any connection, behind a
 * transaction-mode pooler too.
 */
export class PostgresStatements {
  private readonly cache = new Map<string, string>();

  /**
   * @param t a table's name qualified with the store's schema
   * @param savesChannel the channel each save notifies (`PostgresSessionWatch`)
   */
  constructor(
    private readonly t: (table: string) => string,
    private readonly savesChannel: string,
  ) {}

  /**
   * $1 owner, $2 session, $3 record, $4 listing, $5 status, $6 historyLength, $7 items[],
   * $8 approval deadline (or null), $9-$14 the audit entries (`auditValues`), $15 the list
   * positions (`listPositions`), $16 the record's `workflow` (or null: a session).
   */
  create(): string {
    return this.once('create', () => {
      const { t } = this;
      return `WITH ins AS (
        INSERT INTO ${t('agentstate_sessions')}
          (owner, session_id, version, status, history_length, record, listing, approval_deadline,
           ${ORDER_COLUMNS}, workflow)
        VALUES ($1, $2, 1, $5, $6, $3, $4, $8::bigint, ${positionsOf(15)}, $16::text)
        ON CONFLICT (owner, session_id) DO NOTHING
        RETURNING 1
      ), hist AS (
        INSERT INTO ${t('agentstate_history')} (owner, session_id, seq, item)
        SELECT $1, $2, h.ord - 1, h.item FROM ins, unnest($7::text[]) WITH ORDINALITY AS h(item, ord)
      ), tot AS (
        INSERT INTO ${t('agentstate_totals')} (owner, turns, input_tokens, output_tokens, cost_usd)
        SELECT $1, 0, 0, 0, 0 FROM ins
        ON CONFLICT (owner) DO NOTHING
      ), ${auditInsert(t('agentstate_audit'), 9, 'ins')}
      SELECT count(*)::int AS created FROM ins`;
    });
  }

  /**
   * The step: $1 owner, $2 session, $3 expected version, $4 history start, $5 record,
   * $6 listing, $7 status, $8 historyLength, $9 items[], $10 runIds[], $11 steps[],
   * $12 entries[], $13 lease holder, $14 lease token, $15 md5 of the stored record this writer
   * read, $16 the approval deadline (or null), $17 the list positions (`listPositions`), $18 the
   * record's `workflow` (or null: a session), and only `withTotals`: $19-$22 the usage delta,
   * then only `withAudit`: six arrays of audit entries (`auditValues`), then only `withDequeue`:
   * the ids of the queued messages the step takes. Updates one row, or none when anything
   * disagrees. A save that updates the row of a watched session (its `watchers` count, read
   * from the row as locked: a watch registered before the save's update counts) notifies the
   * saves channel with the session's digest (`sessionDigestSql`), delivered when it commits;
   * one nobody watches sends nothing (a NOTIFY serialises the commits that send one).
   */
  save(withTotals: boolean, withAudit = false, withDequeue = false): string {
    return this.once(`save:${withTotals}:${withAudit}:${withDequeue}`, () => {
      const { t } = this;
      const totals = withTotals
        ? `, tot AS (
        UPDATE ${t('agentstate_totals')} AS x SET
          turns = x.turns + $19, input_tokens = x.input_tokens + $20,
          output_tokens = x.output_tokens + $21, cost_usd = x.cost_usd + $22
        FROM upd WHERE x.owner = $1
      )`
        : '';
      return `WITH upd AS (
        UPDATE ${t('agentstate_sessions')} AS s SET
          version = $3 + 1, status = $7, history_length = $8, record = $5, listing = $6,
          approval_deadline = $16::bigint, (${ORDER_COLUMNS}) = (${positionsOf(17)}),
          workflow = $18::text
        WHERE s.owner = $1 AND s.session_id = $2 AND s.version = $3 AND s.history_length = $4
          AND s.status <> 'deleted' AND md5(s.record) = $15
          AND ($13::text IS NULL OR EXISTS (
            SELECT 1 FROM ${t('agentstate_leases')} AS l
            WHERE l.owner = $1 AND l.session_id = $2 AND l.holder = $13
              AND l.token = $14::bigint AND NOT l.released))
        RETURNING s.watchers
      ), hist AS (
        INSERT INTO ${t('agentstate_history')} (owner, session_id, seq, item)
        SELECT $1, $2, $4 + h.ord - 1, h.item FROM upd, unnest($9::text[]) WITH ORDINALITY AS h(item, ord)
      ), jr AS (
        INSERT INTO ${t('agentstate_journal')} (owner, session_id, run_id, step, entry)
        SELECT $1, $2, j.run_id, j.step, j.entry
        FROM upd, unnest($10::text[], $11::int[], $12::text[]) AS j(run_id, step, entry)
        ON CONFLICT (owner, session_id, run_id, step) DO UPDATE SET entry = EXCLUDED.entry
      )${totals}${withAudit ? `, ${auditInsert(t('agentstate_audit'), withTotals ? 23 : 19, 'upd')}` : ''}${
        withDequeue ? `, ${dequeueCte(t, 19 + (withTotals ? 4 : 0) + (withAudit ? 6 : 0))}` : ''
      }
      SELECT CASE WHEN upd.watchers > 0
        THEN pg_notify('${this.savesChannel}', ${sessionDigestSql}) END FROM upd`;
    });
  }

  /**
   * $1 owner, $2 session, $3 +1 or -1: registers a watcher of the session's saves (or ends
   * one) on its row, so its saves notify (`save`). No row: nothing (the session is not stored).
   */
  watchers(): string {
    return this.once('watchers', () => {
      return `UPDATE ${this.t('agentstate_sessions')} SET watchers = greatest(watchers + $3, 0)
        WHERE owner = $1 AND session_id = $2 RETURNING 1`;
    });
  }

  /** $1 owner, $2 session. */
  load(): string {
    return this.once('load', () => {
      return `SELECT record, listing FROM ${this.t('agentstate_sessions')} WHERE owner = $1 AND session_id = $2`;
    });
  }

  /** $1 owner, $2 session: the record with the owner's totals, in one read. */
  loadForUpdate(): string {
    return this.once('loadForUpdate', () => {
      const { t } = this;
      return `SELECT s.record, s.listing, x.turns, x.input_tokens, x.output_tokens, x.cost_usd
        FROM (SELECT 1) AS one
        LEFT JOIN ${t('agentstate_sessions')} AS s ON s.owner = $1 AND s.session_id = $2
        LEFT JOIN ${t('agentstate_totals')} AS x ON x.owner = $1`;
    });
  }

  /** $1 owner, $2 session: what a refused save is checked against. */
  inspect(): string {
    return this.once('inspect', () => {
      const { t } = this;
      return `SELECT s.record, s.version, s.status, s.history_length, l.holder, l.token, l.released
        FROM ${t('agentstate_sessions')} AS s
        LEFT JOIN ${t('agentstate_leases')} AS l ON l.owner = s.owner AND l.session_id = s.session_id
        WHERE s.owner = $1 AND s.session_id = $2`;
    });
  }

  /** $1 owner, $2 session, $3 from, $4 to. */
  history(): string {
    return this.once('history', () => {
      return `SELECT seq, item FROM ${this.t('agentstate_history')}
        WHERE owner = $1 AND session_id = $2 AND seq >= $3 AND seq < $4 ORDER BY seq`;
    });
  }

  /** $1 owner, $2 session, $3 runId, $4 step. */
  journalEntry(): string {
    return this.once('journalEntry', () => {
      return `SELECT entry FROM ${this.t('agentstate_journal')}
        WHERE owner = $1 AND session_id = $2 AND run_id = $3 AND step = $4`;
    });
  }

  /** $1 owner, $2 session, $3 runId, $4 the first step. */
  runJournal(): string {
    return this.once('runJournal', () => {
      return `SELECT step, entry FROM ${this.t('agentstate_journal')}
        WHERE owner = $1 AND session_id = $2 AND run_id = $3 AND step >= $4 ORDER BY step`;
    });
  }

  /**
   * $1 owner, $2 cursor (or null), $3 status (or null), $4 limit: a page of the owner's records
   * of `kind` by id (a read of that kind's partial index of ids).
   */
  list(kind: ListKind): string {
    return this.once(`list:${kind}`, () => {
      return `SELECT session_id, status, listing, workflow FROM ${this.t('agentstate_sessions')}
        WHERE owner = $1 AND ${kindCondition(kind)} AND ($2::text IS NULL OR session_id > $2::text)
          AND ($3::text IS NULL OR status = $3::text)
        ORDER BY session_id LIMIT $4`;
    });
  }

  /**
   * $1 owner, $2 cursor (a position, or null), $3 status (or null), $4 limit: a page of the
   * owner's records of `kind` in `order` (keyset pagination over that kind's index of the order).
   */
  listInOrder(order: ListOrder, kind: ListKind): string {
    return this.once(`list:${kind}:${order}`, () => {
      const column = orderColumn(order);
      return `SELECT session_id, status, listing, workflow, ${column} AS position
        FROM ${this.t('agentstate_sessions')}
        WHERE owner = $1 AND ${kindCondition(kind)} AND ($2::text IS NULL OR ${column} > $2::text)
          AND ($3::text IS NULL OR status = $3::text)
        ORDER BY ${column} LIMIT $4`;
    });
  }

  /** Whether any named user has sessions (for the isolation warning). */
  namedOwners(): string {
    return this.once('namedOwners', () => {
      return `SELECT EXISTS (SELECT 1 FROM ${this.t('agentstate_totals')} WHERE owner LIKE 'u:%') AS named`;
    });
  }

  /** $1 owner: the totals, and whether the owner has sessions. */
  totals(): string {
    return this.once('totals', () => {
      const { t } = this;
      return `SELECT x.turns, x.input_tokens, x.output_tokens, x.cost_usd,
          EXISTS (SELECT 1 FROM ${t('agentstate_sessions')} WHERE owner = $1) AS has_sessions
        FROM (SELECT 1) AS one LEFT JOIN ${t('agentstate_totals')} AS x ON x.owner = $1`;
    });
  }

  /**
   * $1 owner, $2 session, $3-$8 the purge's audit entries: everything of the session but its
   * audit entries (which outlive it), in one statement.
   */
  purge(): string {
    return this.once('purge', () => {
      const { t } = this;
      const where = 'WHERE owner = $1 AND session_id = $2';
      return `WITH s AS (DELETE FROM ${t('agentstate_sessions')} ${where} RETURNING 1),
        h AS (DELETE FROM ${t('agentstate_history')} ${where}),
        j AS (DELETE FROM ${t('agentstate_journal')} ${where}),
        l AS (DELETE FROM ${t('agentstate_leases')} ${where}),
        ${auditInsert(t('agentstate_audit'), 3, 's')},
        q AS (DELETE FROM ${t('agentstate_decisions')} ${where}),
        m AS (DELETE FROM ${t('agentstate_messages')} ${where})
        SELECT count(*)::int AS purged FROM s`;
    });
  }

  /** A page of one owner's audit entries (see `auditSelect`). */
  audit(): string {
    return this.once('audit', () => auditSelect(this.t('agentstate_audit')));
  }

  private once(name: string, build: () => string): string {
    let text = this.cache.get(name);
    if (text === undefined) {
      text = build();
      this.cache.set(name, text);
    }
    return text;
  }
}
