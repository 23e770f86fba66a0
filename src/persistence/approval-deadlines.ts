import type { SessionKey } from './session-store.js';

/** An entry of a store's approval-deadline index: a session whose run waits for an approval. */
export interface DeadlineEntry {
  key: SessionKey;
  /** Epoch milliseconds. */
  deadline: number;
  /** The index key, the cursor to continue a scan after this entry. */
  indexKey: string;
}

export interface DueApprovalsQuery {
  /** Entries with a deadline at or before this time (epoch ms) are due. */
  until: number;
  /** Continue after this index key (the `cursor` of a previous scan). */
  after?: string | undefined;
  /** Entries read at most (due and damaged ones). */
  limit: number;
}

/** One page of the approval-deadline index, in deadline order. */
export interface DueApprovals {
  due: DeadlineEntry[];
  /** Index entries that failed their check (`InvalidSessionRecordError` naming the key). */
  damaged: Error[];
  /** Set when the page is full: pass it as `after` for the rest of the due entries. */
  cursor: string | undefined;
  /** The earliest deadline after `until` (known when `cursor` is undefined). */
  next: number | undefined;
}
