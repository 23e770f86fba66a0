import type pg from 'pg';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import {
  LIST_ORDERS,
  listPosition,
  type ListOrder,
  type PositionedInfo,
} from '../entries/list-order.js';
import * as keys from '../session-keys.js';
import { SessionInfoSchema, decodeStored, toSessionInfo } from '../session-schemas.js';
import type { SessionInfo } from '../session-store.js';
import { listedSession, type ListingRow } from './postgres-rows.js';

/**
 * The list orders in PostgreSQL: one `"C"`-collated column per order holding the session's
 * position in it (`listPosition`, the same text the key-value stores file it under), each with
 * an index on `(owner, position)`, written by the statement that writes the record. A page in
 * an order is a keyset read: `WHERE owner = $1 AND position > cursor ORDER BY position`.
 */

/** The column of each order's positions. */
export function orderColumn(order: ListOrder): string {
  return `order_${order}`;
}

/** The order columns, in `LIST_ORDERS` order. */
export const ORDER_COLUMNS = LIST_ORDERS.map(orderColumn).join(', ');

/** The SQL of each order's position from the text array parameter `$n` (`listPositions`). */
export function positionsOf(n: number): string {
  return LIST_ORDERS.map((_, i) => `($${n}::text[])[${i + 1}]`).join(', ');
}

/** A session's positions, in `LIST_ORDERS` order: the parameter `positionsOf` reads. */
export function listPositions(info: PositionedInfo): string[] {
  return LIST_ORDERS.map((order) => listPosition(order, info));
}

/** A row of a page in an order. */
export interface OrderedRow extends ListingRow {
  position: string;
}

/** A row of a page in `order`, checked as a listing row and filed at its listing's position. */
export function orderedSession(
  userId: string | undefined,
  order: ListOrder,
  row: OrderedRow,
): SessionInfo {
  const info = listedSession(userId, row);
  if (listPosition(order, info) !== row.position) {
    throw new InvalidSessionRecordError(
      keys.listIndexKey(info),
      `the ${orderColumn(order)} column disagrees with the listing entry`,
    );
  }
  return info;
}

const BACKFILL_PAGE = 500;

/**
 * Schema version 7: adds the order columns and their indexes, and fills them from the listing
 * entries already stored (a listing that does not decode is left without positions: reading the
 * session reports the damage). Runs inside the migrating transaction.
 */
export async function addListOrders(
  client: pg.ClientBase,
  t: (name: string) => string,
): Promise<void> {
  const sessions = t('agentstate_sessions');
  await client.query(
    LIST_ORDERS.map(
      (order) => `ALTER TABLE ${sessions} ADD COLUMN ${orderColumn(order)} text COLLATE "C";`,
    ).join('\n'),
  );
  let after: [string, string] = ['', ''];
  for (;;) {
    const { rows } = await client.query<{ owner: string; session_id: string; listing: string }>(
      `SELECT owner, session_id, listing FROM ${sessions}
       WHERE (owner, session_id) > ($1, $2) ORDER BY owner, session_id LIMIT ${BACKFILL_PAGE}`,
      after,
    );
    const found = rows.flatMap((row) => {
      const positions = storedPositions(row.owner, row.session_id, row.listing);
      return positions === undefined ? [] : [{ ...row, positions }];
    });
    if (found.length > 0) {
      const columns = LIST_ORDERS.map((order, i) => `${orderColumn(order)} = f.p${i}`).join(', ');
      const arrays = LIST_ORDERS.map((_, i) => `$${i + 3}::text[]`).join(', ');
      const names = LIST_ORDERS.map((_, i) => `p${i}`).join(', ');
      await client.query(
        `UPDATE ${sessions} AS s SET ${columns}
         FROM unnest($1::text[], $2::text[], ${arrays}) AS f(owner, session_id, ${names})
         WHERE s.owner = f.owner AND s.session_id = f.session_id`,
        [
          found.map((f) => f.owner),
          found.map((f) => f.session_id),
          ...LIST_ORDERS.map((_, i) => found.map((f) => f.positions[i])),
        ],
      );
    }
    const last = rows.at(-1);
    if (!last || rows.length < BACKFILL_PAGE) break;
    after = [last.owner, last.session_id];
  }
  await client.query(
    LIST_ORDERS.map(
      (order) =>
        `CREATE INDEX agentstate_sessions_${orderColumn(order)} ON ${sessions} (owner, ${orderColumn(order)});`,
    ).join('\n'),
  );
}

/** The positions of a stored listing entry, if it decodes. */
function storedPositions(owner: string, sessionId: string, listing: string): string[] | undefined {
  try {
    const userId = keys.userOfOwnerPart(owner);
    const indexKey = keys.listIndexKey({ sessionId, userId });
    return listPositions(toSessionInfo(decodeStored(indexKey, listing, SessionInfoSchema)));
  } catch {
    return undefined;
  }
}
