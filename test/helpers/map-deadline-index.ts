import type {
  DeadlineEntry,
  DueApprovals,
  DueApprovalsQuery,
  SessionKey,
} from 'agentstate-runtime/store';
import { positiveInteger } from './map-checks.js';
import { byMapKey, deadlineMapKey } from './map-keys.js';

/** A session filed in the index under its approval deadline. */
export interface DeadlineRow {
  key: SessionKey;
  deadline: number;
}

/**
 * The approval-deadline index of a `MapSessionStore`: one row per session whose run waits for
 * an approval, keyed in deadline order, moved by the same write as the session's record.
 */
export class MapDeadlineIndex {
  constructor(readonly rows: Map<string, DeadlineRow>) {}

  /** Moves a session's row from `before` to `after` (either may be none). */
  move(key: SessionKey, before: number | undefined, after: number | undefined): void {
    if (before === after) return;
    if (before !== undefined) this.rows.delete(deadlineMapKey(key, before));
    if (after !== undefined) this.file(key, after);
  }

  /** Files the session under `deadline`. */
  file(key: SessionKey, deadline: number): void {
    const session = { sessionId: key.sessionId, userId: key.userId };
    this.rows.set(deadlineMapKey(key, deadline), { key: session, deadline });
  }

  due(query: DueApprovalsQuery): DueApprovals {
    const limit = positiveInteger(query.limit, 'dueApprovals: limit');
    const due: DeadlineEntry[] = [];
    let next: number | undefined;
    for (const [indexKey, { key, deadline }] of [...this.rows].sort(byMapKey)) {
      if (query.after !== undefined && indexKey <= query.after) continue;
      if (deadline > query.until) {
        next = deadline;
        break;
      }
      if (due.length === limit) return { due, damaged: [], cursor: due.at(-1)!.indexKey, next };
      due.push({ key, deadline, indexKey });
    }
    return { due, damaged: [], cursor: undefined, next };
  }

  /** Drops `entry` unless the session's record still holds its deadline (`held`). */
  dropStale(entry: DeadlineEntry, held: number | undefined): boolean {
    if (held === entry.deadline) return false;
    this.rows.delete(deadlineMapKey(entry.key, entry.deadline));
    return true;
  }
}
