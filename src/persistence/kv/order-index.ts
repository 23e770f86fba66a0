import { z } from 'zod';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { getAll, type KvBackend, type KvOp, type KvReader } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';
import {
  LIST_ORDERS,
  ORDER_INDEX_VERSION,
  kindIdKey,
  kindIdRange,
  listPosition,
  orderIndexMarkerKey,
  orderKey,
  orderRange,
  type ListOrder,
} from '../entries/list-order.js';
import { LIST_KINDS, kindOf, type ListKind } from '../entries/list-kind.js';
import { plainSessionInfo } from '../plain-records.js';
import {
  SessionInfoSchema,
  decodeStored,
  decodeStoredWith,
  encodeStored,
  toSessionInfo,
} from '../session-schemas.js';
import type { SessionInfo, SessionKey, SessionPage, SessionStatus } from '../session-store.js';

/**
 * The list-order index of the key-value stores: for each session, one entry per list order at
 * `x!<owner>!<order>!<position>` (see `list-order.ts`), so that a page in any order is a range
 * read from a cursor, never a scan of the owner's sessions. Workflow instances (records with
 * `workflow` set) have indexes of their own, `x!<owner>!workflow-<order>!<position>`: a page of
 * one kind never reads through the other. The entries move with the record in the same batch as
 * its save (never out of step); each entry points at the session's listing entry, which the page
 * reads and checks against it.
 */

/**
 * The index keys of a session under its owner, in its kind's indexes: one per order, and its
 * entry in the index of ids of its kind.
 */
export function orderKeys(
  key: SessionKey,
  info: Parameters<typeof listPosition>[1] & Pick<SessionInfo, 'workflow'>,
): string[] {
  const kind = kindOf(info);
  return [
    ...LIST_ORDERS.map((order) => orderKey(key.userId, order, listPosition(order, info), kind)),
    kindIdKey(key.userId, kind, key.sessionId),
  ];
}

const entryOf = (indexKey: string, sessionId: string): KvOp => ({
  type: 'put',
  key: indexKey,
  value: encodeStored(indexKey, { sessionId }),
});

/** The ops that move a session's entries from `before` to `after` (only those that differ). */
export function orderOps(
  sessionId: string,
  before: readonly string[],
  after: readonly string[],
): KvOp[] {
  const ops: KvOp[] = [];
  for (const indexKey of before) {
    if (!after.includes(indexKey)) ops.push({ type: 'del', key: indexKey });
  }
  for (const indexKey of after) {
    if (!before.includes(indexKey)) ops.push(entryOf(indexKey, sessionId));
  }
  return ops;
}

/**
 * The ops deleting a purged session's entries: those its stored info names, else (a damaged
 * record) every entry of its owner's orders filed under its id.
 */
export async function purgedOrderOps(
  view: KvReader,
  key: SessionKey,
  stored: () => SessionInfo | undefined,
): Promise<KvOp[]> {
  try {
    const info = stored();
    if (info) return orderKeys(key, info).map((k) => ({ type: 'del', key: k }));
  } catch {
    // damaged: found by id below
  }
  const suffix = `!${keys.encodeKeyPart(key.sessionId, 'sessionId')}`;
  const ops: KvOp[] = [];
  for (const kind of LIST_KINDS) {
    ops.push({ type: 'del', key: kindIdKey(key.userId, kind, key.sessionId) });
    for (const order of LIST_ORDERS) {
      for await (const indexKey of view.keys(orderRange(key.userId, order, kind))) {
        if (indexKey.endsWith(suffix)) ops.push({ type: 'del', key: indexKey });
      }
    }
  }
  return ops;
}

/**
 * The ops filing every session of an owner in the index (with the marker that it is whole),
 * from their listing entries: for an owner of a store written before the index.
 */
export async function buildOrderIndexOps(
  view: KvReader,
  userId: string | undefined,
): Promise<KvOp[]> {
  if (await orderIndexIsWhole(view, userId)) return [];
  const listingKeys: string[] = [];
  for await (const k of view.keys(keys.listIndexRange(userId))) listingKeys.push(k);
  const values = await getAll(view, listingKeys);
  const ops: KvOp[] = [];
  values.forEach((raw, i) => {
    const info = checkedInfo(listingKeys[i]!, raw!, userId);
    ops.push(...orderOps(info.sessionId, [], orderKeys(info, info)));
  });
  ops.push(orderMarkerOp(userId));
  return ops;
}

/**
 * Whether an owner has no session yet (nor one of an older store's layout): their first
 * session's save marks their index whole, so it never needs building.
 */
export async function ownerIsNew(view: KvReader, userId: string | undefined): Promise<boolean> {
  for await (const _ of view.keys({ ...keys.listIndexRange(userId), limit: 1 })) return false;
  return (await view.get(keys.legacyOwnerMarkerKey(userId))) === undefined;
}

/** The op marking an owner's index whole. */
export function orderMarkerOp(userId: string | undefined): KvOp {
  const markerKey = orderIndexMarkerKey(userId);
  const value = encodeStored(markerKey, { version: ORDER_INDEX_VERSION });
  return { type: 'put', key: markerKey, value };
}

const MarkerSchema = z.lazy(() => z.object({ version: z.number().int().positive() }));

/**
 * Whether an owner's index holds every session of theirs, in every index this version keeps:
 * marked, by a marker of `ORDER_INDEX_VERSION` or later (a damaged marker is named).
 */
export async function orderIndexIsWhole(
  view: KvReader,
  userId: string | undefined,
): Promise<boolean> {
  const markerKey = orderIndexMarkerKey(userId);
  const raw = await view.get(markerKey);
  if (raw === undefined) return false;
  return decodeStored(markerKey, raw, MarkerSchema).version >= ORDER_INDEX_VERSION;
}

/**
 * The id of the owner's first record of `kind` after `sessionId` (by id), from the index of ids
 * of that kind (its entry checked: its seal, and that it names the id it is filed under), or
 * `undefined` when there is none.
 */
export async function nextOfKind(
  backend: KvBackend,
  userId: string | undefined,
  kind: ListKind,
  sessionId: string,
): Promise<string | undefined> {
  const range = kindIdRange(userId, kind);
  const from = keys.keyAfter(kindIdKey(userId, kind, sessionId));
  for await (const [indexKey, raw] of backend.iterate({ gte: from, lt: range.lt, limit: 1 })) {
    const next = sessionOf(indexKey, raw);
    if (kindIdKey(userId, kind, next) !== indexKey) {
      throw new InvalidSessionRecordError(indexKey, 'the id entry does not name its key');
    }
    return next;
  }
  return undefined;
}

function checkedInfo(listingKey: string, raw: string, userId: string | undefined): SessionInfo {
  const info = toSessionInfo(
    decodeStoredWith(listingKey, raw, SessionInfoSchema, plainSessionInfo),
  );
  if (info.userId !== userId || keys.listIndexKey(info) !== listingKey) {
    throw new InvalidSessionRecordError(listingKey, 'entry does not belong to its key');
  }
  return info;
}

export interface OrderQuery {
  userId: string | undefined;
  kind: ListKind;
  order: ListOrder;
  status: SessionStatus | undefined;
  limit: number;
  cursor: string | undefined;
}

/**
 * One page of an owner's records of one kind in `order`, from the position after `cursor`:
 * index entries are read `limit + 1` at a time with their listing entries, each checked (its
 * seal, that the listing entry exists and is filed at exactly this entry's position, in its
 * kind's index); a stale or damaged entry is `InvalidSessionRecordError` naming its key.
 */
export async function scanOrder(backend: KvBackend, query: OrderQuery): Promise<SessionPage> {
  const { userId, kind, order, status, limit, cursor } = query;
  const range = orderRange(userId, order, kind);
  let from =
    cursor === undefined ? range.gte : keys.keyAfter(orderKey(userId, order, cursor, kind));
  const sessions: SessionInfo[] = [];
  for (;;) {
    const chunk: [string, string][] = [];
    for await (const entry of backend.iterate({ gte: from, lt: range.lt, limit: limit + 1 })) {
      chunk.push(entry);
    }
    const listingKeys = chunk.map(([indexKey, raw]) =>
      keys.listIndexKey({ sessionId: sessionOf(indexKey, raw), userId }),
    );
    const listings = await getAll(backend, listingKeys);
    for (let i = 0; i < chunk.length; i++) {
      const indexKey = chunk[i]![0];
      const listingKey = listingKeys[i]!;
      const raw = listings[i];
      if (raw === undefined) {
        throw new InvalidSessionRecordError(indexKey, 'the list-order entry has no listing entry');
      }
      const info = checkedInfo(listingKey, raw, userId);
      if (orderKey(userId, order, listPosition(order, info), kindOf(info)) !== indexKey) {
        throw new InvalidSessionRecordError(
          indexKey,
          'the list-order entry disagrees with its listing entry',
        );
      }
      if (status !== undefined && info.status !== status) continue;
      if (sessions.length === limit) {
        return { sessions, nextCursor: listPosition(order, sessions[limit - 1]!) };
      }
      sessions.push(info);
    }
    if (chunk.length <= limit) return { sessions, nextCursor: undefined };
    from = keys.keyAfter(chunk[chunk.length - 1]![0]);
  }
}

const IndexValueSchema = z.lazy(() => z.object({ sessionId: z.string().min(1) }));

/** The session an index entry points at, its seal and shape checked. */
function sessionOf(indexKey: string, raw: string): string {
  return decodeStored(indexKey, raw, IndexValueSchema).sessionId;
}
