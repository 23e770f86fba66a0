import type { Item } from '../../items/item.js';
import { itemBeforeWrite } from '../checked-writes.js';
import * as keys from '../session-keys.js';
import { sealValue } from '../sealed-value.js';
import { encodeStored, toSessionInfo } from '../session-schemas.js';
import type { SessionKey, SessionRecord } from '../session-store.js';

/**
 * The entries a create or save writes beside the record, sealed under their keys the same way
 * in every store, so every store reads and checks the same bytes: the session's listing entry
 * and its new history items.
 */

/** One sealed entry: its key and its stored text. */
export interface EncodedEntry {
  key: string;
  value: string;
}

/**
 * The listing entry of a record (what `list` returns of it), at the key of `session`, with its
 * JSON (the record's info, which its envelope holds too: `envelopeJson`).
 */
export function encodedListing(
  record: SessionRecord,
  session: SessionKey = record,
): EncodedEntry & { json: string } {
  const key = keys.listIndexKey(session);
  const json = JSON.stringify(toSessionInfo(record));
  return { key, value: sealValue(key, json), json };
}

/** History items appended at `start`, each checked before it is written. */
export function encodedHistory(
  key: SessionKey,
  start: number,
  items: readonly Item[],
): EncodedEntry[] {
  return items.map((item, i) => {
    const itemKey = keys.historyKey(key, start + i);
    return { key: itemKey, value: encodeStored(itemKey, itemBeforeWrite(item)) };
  });
}
