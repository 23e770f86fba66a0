import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { KvBackend, KvReader } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';
import { plainUsageTotals } from '../plain-records.js';
import { UsageTotalsSchema, decodeStoredWith, toUsageTotals } from '../session-schemas.js';
import { emptyTotals, type UsageTotals } from '../session-store.js';
import { addUsd } from '../../validation/usd-amount.js';

/**
 * An owner's usage totals across sessions, from the raw value at their totals key (read by
 * the caller, often in one batch with other keys). The key is written with the owner's first
 * session, so it may be absent only for an owner without sessions, or for an owner of a store
 * written by agentstate 0.1 (which wrote totals with the first usage and left an owner marker).
 * Absent anywhere else, it was deleted: `InvalidSessionRecordError` rather than a silent zero.
 */
export async function readOwnerTotals(
  backend: KvReader,
  userId: string | undefined,
  raw: string | undefined,
): Promise<UsageTotals> {
  const totalsKey = keys.userTotalsKey(userId);
  if (raw !== undefined) {
    return toUsageTotals(decodeStoredWith(totalsKey, raw, UsageTotalsSchema, plainUsageTotals));
  }
  // An owner without sessions has none (the common case: a new owner), marker or not.
  for await (const _ of backend.keys({ ...keys.recordRange(userId), limit: 1 })) {
    if ((await backend.get(keys.legacyOwnerMarkerKey(userId))) !== undefined) return emptyTotals();
    throw new InvalidSessionRecordError(
      totalsKey,
      'missing: the owner has sessions, so their usage totals must be stored',
    );
  }
  return emptyTotals();
}

/** Whether a store holds sessions of any named user (for the isolation warning). */
export async function hasNamedOwners(backend: KvBackend): Promise<boolean> {
  for (const range of keys.namedOwnersRanges()) {
    for await (const _ of backend.keys({ ...range, limit: 1 })) return true;
  }
  return false;
}

/** The sum of two usage totals. */
export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    turns: a.turns + b.turns,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: addUsd(a.costUsd, b.costUsd),
  };
}
