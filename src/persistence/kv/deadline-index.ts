import { z } from 'zod';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { KvBackend, KvOp } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';
import { decodeStored, encodeStored } from '../session-schemas.js';
import type { SessionKey, SessionRecord } from '../session-store.js';
import type { DeadlineEntry, DueApprovals, DueApprovalsQuery } from '../approval-deadlines.js';

/**
 * The approval-deadline index: one entry per session whose run waits for an approval with a
 * deadline, under `d!<deadline>!<owner>!<sid>` (see `session-keys.ts`), so a scan in key order
 * is a scan in deadline order across all owners. Each entry is written, moved and deleted in
 * the same batch as its session's record, from the record's `approvalDeadline`.
 */

const DeadlineValueSchema = z.lazy(() =>
  z.object({
    sessionId: z.string().min(1),
    userId: z.string().optional(),
    deadline: z.number().int().nonnegative(),
  }),
);

/** The op deleting a purged session's deadline entry (a damaged record's: dropped later). */
export function purgedDeadlineOps(
  key: SessionKey,
  stored: () => SessionRecord | undefined,
): KvOp[] {
  try {
    return deadlineOps(key, stored()?.approvalDeadline, undefined);
  } catch {
    return [];
  }
}

/** The ops that move a session's index entry from `before` to `after` (none if unchanged). */
export function deadlineOps(
  key: SessionKey,
  before: number | undefined,
  after: number | undefined,
): KvOp[] {
  if (before === after) return [];
  const ops: KvOp[] = [];
  if (before !== undefined) ops.push({ type: 'del', key: keys.deadlineKey(key, before) });
  if (after !== undefined) {
    const indexKey = keys.deadlineKey(key, after);
    const value = { sessionId: key.sessionId, userId: key.userId, deadline: after };
    ops.push({ type: 'put', key: indexKey, value: encodeStored(indexKey, value) });
  }
  return ops;
}

/**
 * One page of due index entries (deadline <= `until`), each checked: its seal, its shape, and
 * that it is filed under exactly the key its content gives. A damaged entry is reported in
 * `damaged` and the scan goes on. Reads only.
 */
export async function scanDueDeadlines(
  backend: KvBackend,
  query: DueApprovalsQuery,
): Promise<DueApprovals> {
  const { until, after, limit } = query;
  const page: DueApprovals = { due: [], damaged: [], cursor: undefined, next: undefined };
  let read = 0;
  let last: string | undefined;
  for await (const [indexKey, raw] of backend.iterate(keys.dueDeadlineRange(until, after))) {
    if (read === limit) {
      page.cursor = last;
      return page;
    }
    read += 1;
    last = indexKey;
    try {
      page.due.push(checkedEntry(indexKey, raw));
    } catch (error) {
      page.damaged.push(error as Error);
    }
  }
  for await (const indexKey of backend.keys(keys.laterDeadlineRange(until))) {
    const deadline = keys.deadlineOfKey(indexKey);
    if (!Number.isNaN(deadline)) {
      page.next = deadline;
      break;
    }
    page.damaged.push(new InvalidSessionRecordError(indexKey, 'not a deadline index key'));
  }
  return page;
}

function checkedEntry(indexKey: string, raw: string): DeadlineEntry {
  const value = decodeStored(indexKey, raw, DeadlineValueSchema);
  const key: SessionKey = { sessionId: value.sessionId, userId: value.userId };
  if (keys.deadlineKey(key, value.deadline) !== indexKey) {
    throw new InvalidSessionRecordError(indexKey, 'entry does not belong to its key', {
      sessionId: value.sessionId,
    });
  }
  return { key, deadline: value.deadline, indexKey };
}
