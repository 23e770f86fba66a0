import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { KvBackend } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';
import { plainSessionInfo } from '../plain-records.js';
import { SessionInfoSchema, decodeStoredWith, toSessionInfo } from '../session-schemas.js';
import type { SessionInfo, SessionPage, SessionStatus } from '../session-store.js';
import { kindOf, type ListKind } from '../entries/list-kind.js';
import { nextOfKind } from './order-index.js';

export interface ListingQuery {
  userId: string | undefined;
  kind: ListKind;
  status: SessionStatus | undefined;
  limit: number;
  cursor: string | undefined;
  /**
   * Makes the owner's index of ids of each kind whole (an owner of a store written before it),
   * before the first time the walk passes over records of the other kind.
   */
  wholeIndex: () => Promise<void>;
}

/**
 * One page of an owner's records of one kind (sessions, or workflow instances: `kindOf`) from
 * the listing index, walked side by side with the owner's record keys (keys only, no values):
 * every listing entry must have its record and every record its listing entry, so a deleted key
 * of either sort is named instead of a session silently missing from, or haunting, the page.
 * Where the walk meets a record of the other kind, it goes on from the next record of its own
 * kind (the index of ids of that kind, `nextOfKind`): a run of the other kind's records is
 * passed over, not read, so a page costs the same however many records of the other kind the
 * owner has. A status is a filter of the walk.
 */
export async function scanListing(backend: KvBackend, query: ListingQuery): Promise<SessionPage> {
  const { userId, kind, status, limit, cursor } = query;
  const sessions: SessionInfo[] = [];
  /** Where the walk goes on: after the cursor, or at a record of the kind (inclusive). */
  let from: { after: string } | { at: string } | undefined =
    cursor === undefined ? undefined : { after: cursor };
  for (;;) {
    const walked = await walk(backend, userId, from, (info) => {
      if (kindOf(info) !== kind) return 'other';
      if (status !== undefined && info.status !== status) return 'skip';
      if (sessions.length === limit) return 'more';
      sessions.push(info);
      return 'taken';
    });
    if (walked.stop !== 'other') {
      const more = walked.stop === 'more';
      return { sessions, nextCursor: more ? sessions[sessions.length - 1]?.sessionId : undefined };
    }
    await query.wholeIndex();
    const next = await nextOfKind(backend, userId, kind, walked.at);
    if (next === undefined) return { sessions, nextCursor: undefined };
    from = { at: next };
  }
}

type Verdict = 'taken' | 'skip' | 'other' | 'more';

/**
 * Walks the owner's listing entries with their record keys from `from`, each checked, handing
 * each session to `take`, until the owner's last (`end`), a session of the other kind (`other`,
 * with its id), or `take` has a full page (`more`).
 */
async function walk(
  backend: KvBackend,
  userId: string | undefined,
  from: { after: string } | { at: string } | undefined,
  take: (info: SessionInfo) => Verdict,
): Promise<{ stop: 'end' | 'more' } | { stop: 'other'; at: string }> {
  const index = keys.listIndexRange(userId);
  const records = keys.recordRange(userId);
  const start = (key: (k: { sessionId: string; userId: string | undefined }) => string) =>
    from === undefined
      ? undefined
      : 'after' in from
        ? keys.keyAfter(key({ sessionId: from.after, userId }))
        : key({ sessionId: from.at, userId });
  // No limit on the ranges: a page ends the walk (a status filter may pass over many).
  const entryRange = { gte: start(keys.listIndexKey) ?? index.gte, lt: index.lt };
  const recordRange = { gte: start(keys.recordKey) ?? records.gte, lt: records.lt };
  const entries = backend.iterate(entryRange)[Symbol.asyncIterator]();
  const recordKeys = backend.keys(recordRange)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const [entry, record] = await Promise.all([entries.next(), recordKeys.next()]);
      if (entry.done && record.done) return { stop: 'end' };
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
      const verdict = take(info);
      if (verdict === 'more') return { stop: 'more' };
      if (verdict === 'other') return { stop: 'other', at: info.sessionId };
    }
  } finally {
    await Promise.all([entries.return?.(), recordKeys.return?.()]);
  }
}
