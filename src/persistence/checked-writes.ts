import { Item } from '../items/item.js';
import { plainItem } from '../items/plain-item.js';
import { plainUsageTotals } from './plain-records.js';
import { UsageTotalsSchema, checkBeforeWrite } from './session-schemas.js';
import type { UsageTotals } from './session-store.js';

/**
 * The values a store checks before writing them that come from outside the runtime's own
 * typing (model, tool and app output): checked by hand first, by the schema only when the hand
 * check refuses, so that a bad value is a `TypeError` naming the field.
 */

/** A history item before it is written. */
export function itemBeforeWrite(item: unknown): Item {
  return plainItem(item) ?? checkBeforeWrite('history item', item, Item);
}

/** A user's usage delta before it is added to the owner's totals. */
export function usageDeltaBeforeWrite(delta: unknown): UsageTotals {
  return plainUsageTotals(delta) ?? checkBeforeWrite('usage delta', delta, UsageTotalsSchema);
}
