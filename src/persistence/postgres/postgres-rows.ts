import { createHash } from 'node:crypto';
import {
  InvalidSessionRecordError,
  LeaseLostError,
  SessionConflictError,
  SessionNotFoundError,
} from '../../errors/session-errors.js';
import type { SessionRecordCodec } from '../session-record-codec.js';
import * as keys from '../session-keys.js';
import {
  SessionInfoSchema,
  UsageTotalsSchema,
  decodeStored,
  toSessionInfo,
  toUsageTotals,
  validateStored,
} from '../session-schemas.js';
import { emptyTotals } from '../session-store.js';
import type { SessionInfo, SessionKey, SessionRecord, UsageTotals } from '../session-store.js';
import type { SessionLease } from '../session-leases.js';
import { checkAppend } from '../store-args.js';
import { decodeRecordAt } from '../stored-reads.js';
import { roundUsd } from '../../validation/usd-amount.js';

/** Reading the PostgreSQL store's rows back: the checks that name what is wrong. */

export const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** The user's totals columns (null when the row is absent). */
export interface TotalsRow {
  turns: string | number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  has_sessions?: boolean;
}

/** A session row with its lease, read after a save updated nothing. */
export interface SaveCheckRow {
  record: string;
  version: number;
  status: string;
  history_length: number;
  holder: string | null;
  token: string | null;
  released: boolean | null;
}

/** An owner's totals from a row; absent next to sessions is damage. */
export function totalsFromRow(
  userId: string | undefined,
  row: TotalsRow | undefined,
  hasSessions: boolean,
): UsageTotals {
  const totalsKey = keys.userTotalsKey(userId);
  if (!row || row.turns === null) {
    if (hasSessions) {
      throw new InvalidSessionRecordError(
        totalsKey,
        'missing: the owner has sessions, so their usage totals must be stored',
      );
    }
    return emptyTotals();
  }
  const totals = {
    turns: Number(row.turns),
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    // Added up in SQL (double precision): rounded as the other stores round each sum.
    costUsd: row.cost_usd === null ? row.cost_usd : roundUsd(row.cost_usd),
  };
  return toUsageTotals(validateStored(totalsKey, totals, UsageTotalsSchema));
}

/**
 * Throws what stopped a save (not found, damage, lost lease, version, tombstone, history
 * length). Returns the md5 of the stored record when nothing does (the writer did not know
 * the stored text).
 */
export function whySaveRefused(
  codec: SessionRecordCodec,
  key: SessionKey,
  row: SaveCheckRow | undefined,
  commit: { next: SessionRecord; start: number; appended: number; lease: SessionLease | undefined },
): string {
  const { next, start, appended, lease } = commit;
  if (!row) throw new SessionNotFoundError(key.sessionId);
  const stored = decodeRecordAt(codec, key, row.record);
  // A writer whose lease was taken over learns that first (fencing), whatever its version.
  const current =
    row.holder === lease?.owner && Number(row.token) === lease?.token && row.released === false;
  if (lease && !current) throw new LeaseLostError(key.sessionId, lease.owner);
  if (stored.version !== next.version) {
    throw new SessionConflictError(key.sessionId, next.version, stored.version);
  }
  if (stored.status === 'deleted') {
    throw new SessionConflictError(key.sessionId, next.version, stored.version, true);
  }
  checkAppend(stored.historyLength, appended, next.historyLength);
  if (
    stored.historyLength !== start ||
    row.version !== stored.version ||
    row.history_length !== stored.historyLength
  ) {
    throw new InvalidSessionRecordError(keys.recordKey(key), 'the row disagrees with its record', {
      sessionId: key.sessionId,
    });
  }
  return md5(row.record);
}

/** A row of a listing page. */
export interface ListingRow {
  session_id: string;
  status: string;
  listing: string;
  /** The `workflow` column: the kind of record the row is listed as (null: a session). */
  workflow: string | null;
}

/**
 * A listing row's session, checked to belong to its owner, session id and status, and to be
 * listed as its kind (the `workflow` column holds the listing entry's `workflow`).
 */
export function listedSession(userId: string | undefined, row: ListingRow): SessionInfo {
  const indexKey = keys.listIndexKey({ sessionId: row.session_id, userId });
  const info = toSessionInfo(decodeStored(indexKey, row.listing, SessionInfoSchema));
  if (info.userId !== userId || info.sessionId !== row.session_id || info.status !== row.status) {
    throw new InvalidSessionRecordError(indexKey, 'entry does not belong to its key');
  }
  if ((info.workflow ?? null) !== row.workflow) {
    throw new InvalidSessionRecordError(
      indexKey,
      'the workflow column disagrees with the listing entry',
    );
  }
  return info;
}
