import { encodeKeyPart } from '../session-keys.js';
import { ownerPart, prefixRange } from '../session-keys.js';
import type { KvRange } from '../key-range.js';
import type { ListOrder, SessionInfo } from '../session-store.js';
import type { ListKind } from './list-kind.js';

export type { ListOrder };

/**
 * The orders a store lists an owner's sessions in, across pages (`list({ order })`): by id,
 * last update, creation or tokens used (the latest first), each with the sessions whose run
 * waits for an approval (`awaitingApproval`) before all others.
 */
export const LIST_ORDERS = [
  'id',
  'updated',
  'created',
  'usage',
] as const satisfies readonly ListOrder[];

const DIGITS = 16;

/** `value` (a time or a count) descending as fixed-width digits: larger values sort first. */
function descending(value: number): string {
  const clamped = Math.min(Math.max(Math.floor(value), 0), Number.MAX_SAFE_INTEGER);
  return String(Number.MAX_SAFE_INTEGER - clamped).padStart(DIGITS, '0');
}

/** The fields a session's list positions are made of. */
export type PositionedInfo = Pick<
  SessionInfo,
  'sessionId' | 'createdAt' | 'updatedAt' | 'usage' | 'awaitingApproval'
>;

/**
 * Where a session stands in `order`, as text whose byte order is the list's order: `0!` for a
 * session waiting for an approval, `1!` for the others, the order's value descending (none for
 * `id`), then the encoded session id. It is also the cursor of a page that ends there.
 */
export function listPosition(order: ListOrder, info: PositionedInfo): string {
  const waiting = info.awaitingApproval === true ? '0' : '1';
  const id = encodeKeyPart(info.sessionId, 'sessionId');
  switch (order) {
    case 'id':
      return `${waiting}!${id}`;
    case 'updated':
      return `${waiting}!${descending(info.updatedAt)}!${id}`;
    case 'created':
      return `${waiting}!${descending(info.createdAt)}!${id}`;
    case 'usage':
      return `${waiting}!${descending(info.usage.inputTokens + info.usage.outputTokens)}!${id}`;
  }
}

const CURSOR: Record<ListOrder, RegExp> = {
  id: /^[01]![^!]+$/,
  updated: /^[01]!\d{16}![^!]+$/,
  created: /^[01]!\d{16}![^!]+$/,
  usage: /^[01]!\d{16}![^!]+$/,
};

/** Whether `cursor` is a position of `order` (what `listPosition` makes). */
export function isListCursor(order: ListOrder, cursor: string): boolean {
  return CURSOR[order].test(cursor);
}

/**
 * A listing query's order and cursor, checked: an unknown order, or a cursor that is not a
 * position of the order, is a `TypeError`.
 */
export function checkListOrder(order: unknown, cursor: string | undefined): ListOrder {
  if (!(LIST_ORDERS as readonly unknown[]).includes(order)) {
    throw new TypeError(
      `list: order must be one of ${LIST_ORDERS.join(', ')}, got ${String(order)}`,
    );
  }
  const checked = order as ListOrder;
  if (cursor !== undefined && !isListCursor(checked, cursor)) {
    throw new TypeError(`list: cursor "${cursor}" is not a cursor of the order "${checked}"`);
  }
  return checked;
}

/**
 * The name of one kind's index of `order` in the key-value stores: the order's own name for
 * sessions (as before kinds), `workflow-<order>` for workflow instances.
 */
function indexName(order: ListOrder, kind: ListKind): string {
  return kind === 'session' ? order : `${kind}-${order}`;
}

/**
 * The key of a record's entry in one list order of its owner (the key-value stores' index),
 * in the index of its kind (`kindOf`).
 */
export function orderKey(
  userId: string | undefined,
  order: ListOrder,
  position: string,
  kind: ListKind,
): string {
  return `x!${ownerPart(userId)}!${indexName(order, kind)}!${position}`;
}

/**
 * The key of a record's entry in its owner's index of ids of its kind (the key-value stores'):
 * how a page by id of one kind passes over a run of records of the other (`listing-scan.ts`).
 */
export function kindIdKey(userId: string | undefined, kind: ListKind, sessionId: string): string {
  return `x!${ownerPart(userId)}!${kind}-ids!${encodeKeyPart(sessionId, 'sessionId')}`;
}

/** One owner's index of ids of one kind. */
export function kindIdRange(userId: string | undefined, kind: ListKind): KvRange {
  return prefixRange(`x!${ownerPart(userId)}!${kind}-ids!`);
}

/** One list order of one owner's records of one kind, by position. */
export function orderRange(userId: string | undefined, order: ListOrder, kind: ListKind): KvRange {
  return prefixRange(`x!${ownerPart(userId)}!${indexName(order, kind)}!`);
}

/**
 * Marks an owner whose list-order index holds every session: written with the owner's first
 * session, or when an owner of a store written before the index is first listed in order. Its
 * value's `version` says which indexes are whole (`ORDER_INDEX_VERSION`).
 */
export function orderIndexMarkerKey(userId: string | undefined): string {
  return `n!${ownerPart(userId)}`;
}

/**
 * The version of an owner's list-order index a marker says is whole: 1, the orders; 2, the
 * orders and the ids of each kind (`kindIdKey`). An owner marked with an older one is filed
 * again, in one batch, when first listed.
 */
export const ORDER_INDEX_VERSION = 2;
