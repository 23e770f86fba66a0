import type pg from 'pg';
import { LIST_KINDS, type ListKind } from '../entries/list-kind.js';
import { LIST_ORDERS } from '../entries/list-order.js';
import * as keys from '../session-keys.js';
import { SessionInfoSchema, decodeStored, toSessionInfo } from '../session-schemas.js';
import { orderColumn } from './postgres-list-orders.js';

/**
 * The kinds of record in PostgreSQL (`ListSessionsQuery.kind`): the `workflow` column of the
 * session row holds a workflow instance's `workflow` (null for a session), written by the
 * statement that writes the record. Every listing index is partial, one per kind (the owner's
 * ids, and each order's positions), so a page of one kind is a read of its own index and never
 * reads through the other kind's rows.
 */

/** The SQL condition that holds for the rows of `kind` (the predicate of its partial indexes). */
export function kindCondition(kind: ListKind): string {
  return kind === 'session' ? 'workflow IS NULL' : 'workflow IS NOT NULL';
}

/** The name of a kind's index of ids (`order` omitted) or of one order's positions. */
function indexName(kind: ListKind, column?: string): string {
  return column === undefined ? `agentstate_${kind}s_by_id` : `agentstate_${kind}s_${column}`;
}

const BACKFILL_PAGE = 500;

/**
 * Schema version 8: adds the `workflow` column, fills it from the listing entries already
 * stored (only those that name a workflow; a listing that does not decode is left as a
 * session's: reading it reports the damage), and replaces version 7's order indexes with one
 * partial index per kind and order, plus one per kind on the owner's ids. Runs inside the
 * migrating transaction.
 */
export async function addListKinds(
  client: pg.ClientBase,
  t: (name: string) => string,
): Promise<void> {
  const sessions = t('agentstate_sessions');
  await client.query(`ALTER TABLE ${sessions} ADD COLUMN workflow text COLLATE "C"`);
  let after: [string, string] = ['', ''];
  for (;;) {
    const { rows } = await client.query<{ owner: string; session_id: string; listing: string }>(
      `SELECT owner, session_id, listing FROM ${sessions}
       WHERE (owner, session_id) > ($1, $2) AND strpos(listing, '"workflow":') > 0
       ORDER BY owner, session_id LIMIT ${BACKFILL_PAGE}`,
      after,
    );
    const found = rows.flatMap((row) => {
      const workflow = storedWorkflow(row.owner, row.session_id, row.listing);
      return workflow === undefined ? [] : [{ ...row, workflow }];
    });
    if (found.length > 0) {
      await client.query(
        `UPDATE ${sessions} AS s SET workflow = f.workflow
         FROM unnest($1::text[], $2::text[], $3::text[]) AS f(owner, session_id, workflow)
         WHERE s.owner = f.owner AND s.session_id = f.session_id`,
        [found.map((f) => f.owner), found.map((f) => f.session_id), found.map((f) => f.workflow)],
      );
    }
    const last = rows.at(-1);
    if (!last || rows.length < BACKFILL_PAGE) break;
    after = [last.owner, last.session_id];
  }
  const statements = LIST_ORDERS.map(
    (order) => `DROP INDEX ${t(`agentstate_sessions_${orderColumn(order)}`)};`,
  );
  for (const kind of LIST_KINDS) {
    const where = `WHERE ${kindCondition(kind)}`;
    statements.push(`CREATE INDEX ${indexName(kind)} ON ${sessions} (owner, session_id) ${where};`);
    for (const order of LIST_ORDERS) {
      const column = orderColumn(order);
      statements.push(
        `CREATE INDEX ${indexName(kind, column)} ON ${sessions} (owner, ${column}) ${where};`,
      );
    }
  }
  await client.query(statements.join('\n'));
}

/** The `workflow` of a stored listing entry, if it decodes and names one. */
function storedWorkflow(owner: string, sessionId: string, listing: string): string | undefined {
  try {
    const userId = keys.userOfOwnerPart(owner);
    const indexKey = keys.listIndexKey({ sessionId, userId });
    return toSessionInfo(decodeStored(indexKey, listing, SessionInfoSchema)).workflow;
  } catch {
    return undefined;
  }
}
