import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { KvBackend } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';
import { plainSessionInfo } from '../plain-records.js';
import { SessionInfoSchema, decodeStoredWith, toSessionInfo } from '../session-schemas.js';
import type { SessionPage, SessionStatus } from '../session-store.js';
import { kindOf, type ListKind } from '../entries/list-kind.js';

export interface ListingQuery {
  userId: string | undefined;
  kind: ListKind;
  status: SessionStatus | undefined;
  limit: number;
  cursor: string | undefined;
}

/**
 * One page of an owner's records of one kind (sessions, or workflow instances: `kindOf`) from
 * the listing index, walked side by side with the owner's record keys (keys only, no values):
 * every listing entry must have its record and every record its listing entry, so a deleted key
 * of either sort is named instead of a session silently missing from, or haunting, the page.
 * The kind and the status are filters of the walk (a page in an order reads its kind's own
 * index instead: `scanOrder`).
 */
export async function scanListing(backend: KvBackend, query: ListingQuery): Promise<SessionPage> {
  const { userId, kind, status, limit, cursor } = query;
  const index = keys.listIndexRange(userId);
  const records = keys.recordRange(userId);
  const after = cursor === undefined ? undefined : { sessionId: cursor, userId };
  // No limit on the ranges: records of the other kind are walked past, so a page ends the walk.
  const entryRange = {
    gte: after ? keys.keyAfter(keys.listIndexKey(after)) : index.gte,
    lt: index.lt,
  };
  const recordRangeQuery = {
    gte: after ? keys.keyAfter(keys.recordKey(after)) : records.gte,
    lt: records.lt,
  };
  const entries = backend.iterate(entryRange)[Symbol.asyncIterator]();
  const recordKeys = backend.keys(recordRangeQuery)[Symbol.asyncIterator]();
  const sessions: SessionPage['sessions'] = [];
  let more = false;
  try {
    for (;;) {
      const [entry, record] = await Promise.all([entries.next(), recordKeys.next()]);
      if (entry.done && record.done) break;
      const listed = entry.done ? undefined : entry.value[0].slice(index.gte.length);
      const stored = record.done ? undefined : record.value.slice(records.gte.length);
      if (listed !== stored) {
        if (listed !== undefined && (stored === undefined || listed < stored)) {
          throw new InvalidSessionRecordError(
            records.gte + listed,
            'the session record is missing but its listing entry exists',
          );
        }
        throw new InvalidSessionRecordError(
          index.gte + (stored as string),
          'the listing entry is missing but the session record exists',
        );
      }
      const [indexKey, value] = entry.value as [string, string];
      const info = toSessionInfo(
        decodeStoredWith(indexKey, value, SessionInfoSchema, plainSessionInfo),
      );
      if (info.userId !== userId || keys.listIndexKey(info) !== indexKey) {
        throw new InvalidSessionRecordError(indexKey, 'entry does not belong to its key');
      }
      if (kindOf(info) !== kind) continue;
      if (status !== undefined && info.status !== status) continue;
      if (sessions.length === limit) {
        more = true;
        break;
      }
      sessions.push(info);
    }
  } finally {
    await Promise.all([entries.return?.(), recordKeys.return?.()]);
  }
  return { sessions, nextCursor: more ? sessions[sessions.length - 1]?.sessionId : undefined };
}
