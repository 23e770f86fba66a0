import type { Item } from '../items/item.js';
import type { ListSessionsQuery, SessionRecord } from './session-store.js';

/** Argument checks every store makes the same way (mistakes are `TypeError`s). */

export const DEFAULT_LIST_LIMIT = 50;

/** The page size of a listing query. */
export function listLimit(query: ListSessionsQuery): number {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`list: limit must be a positive integer, got ${limit}`);
  }
  return limit;
}

/** A history position given by a caller. */
export function checkIndex(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${what} must be a non-negative integer, got ${value}`);
  }
}

/** A created record must count exactly the items it is created with. */
export function checkCreateItems(record: Omit<SessionRecord, 'version'>, items: Item[]): void {
  if (record.historyLength !== items.length) {
    throw new TypeError(
      `create: historyLength is ${record.historyLength} but ${items.length} items were given`,
    );
  }
}

/** A saved record must count the stored items plus the appended ones. */
export function checkAppend(storedLength: number, appended: number, recordLength: number): void {
  if (storedLength + appended !== recordLength) {
    throw new TypeError(
      `save: stored historyLength ${storedLength} + ${appended} new items ` +
        `!== record.historyLength ${recordLength}`,
    );
  }
}

/**
 * The end of a history read from `from` (checked, as `to` is): `to`, else the stored length;
 * `undefined` when the range is empty.
 */
export async function historyEnd(
  from: number,
  to: number | undefined,
  storedLength: () => Promise<number>,
): Promise<number | undefined> {
  checkIndex(from, 'from');
  if (to !== undefined) checkIndex(to, 'to');
  const end = to ?? (await storedLength());
  return end <= from ? undefined : end;
}
