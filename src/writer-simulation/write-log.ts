import type { Item } from '../items/item.js';

/** A save (or a create) the store accepted, as the simulation saw it go in. */
export interface AcceptedSave {
  worker: number;
  sessionId: string;
  /** The version the store now holds (1 for a create). */
  version: number;
  /** The lease token the save carried (none: it carried no lease). */
  leaseToken: number | undefined;
  /** The newest lease token granted for the session before the write went in (0: none). */
  newestGrant: number;
  /** Where its items start in the history, and their canonical JSON, one per item. */
  start: number;
  items: string[];
  /** Whether its caller heard it succeed (a failed write's answer may be lost after it landed). */
  acknowledged: boolean;
}

/**
 * A message a worker sent, and what its caller heard: answered, stored to be answered
 * (`queued`), answered before (the same id sent again), or nothing it can count on.
 */
export interface SentMessage {
  worker: number;
  sessionId: string;
  messageId: string;
  text: string;
  outcome: 'answered' | 'queued' | 'answered-before' | 'unacknowledged';
}

/**
 * What the simulation observed of every worker: the saves each store accepted, every message sent
 * with what its caller heard, and the lease tokens granted per session. The findings are read
 * from it and the final histories (`writersVerdict`).
 */
export class WriteLog {
  readonly saves: AcceptedSave[] = [];
  readonly sends: SentMessage[] = [];
  /** Approvals whose caller heard them applied: the call must then run (or be cancelled). */
  readonly approvals: { worker: number; sessionId: string; callId: string }[] = [];
  private readonly grants = new Map<string, number>();

  /** Notes a lease granted for `sessionId` with `token`. */
  granted(sessionId: string, token: number): void {
    if (token > (this.grants.get(sessionId) ?? 0)) this.grants.set(sessionId, token);
  }

  /** The newest lease token granted for `sessionId` so far (0: none). */
  newestGrant(sessionId: string): number {
    return this.grants.get(sessionId) ?? 0;
  }
}

/** An item as canonical JSON (keys sorted), so that a store's round trip compares equal. */
export function canonicalItem(item: Item): string {
  return JSON.stringify(sorted(item));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sorted(v)]));
}
