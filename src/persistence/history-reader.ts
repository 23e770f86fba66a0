import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { Item } from '../items/item.js';
import { plainItem } from '../items/plain-item.js';
import { TurnCalls } from '../items/turn-calls.js';
import * as keys from './session-keys.js';
import { readStored, validateStored } from './session-schemas.js';
import type { SessionKey } from './session-store.js';

/**
 * The history items of `[from, to)` from `(logical key, sealed value)` pairs read in position
 * order, whatever store they come from, with the same proof that the log is whole, and each
 * tool result answering a call of its turn (`TurnCalls`; a read from 0 checks every one).
 */
export async function checkHistoryEntries(
  key: SessionKey,
  from: number,
  to: number,
  entries: AsyncIterable<[string, string]> | Iterable<[string, string]>,
): Promise<Item[]> {
  const items: Item[] = [];
  const scope = { sessionId: key.sessionId };
  const historyKey = keys.historyKeyOf(key);
  const turn = new TurnCalls(from === 0);
  let expected = from;
  for await (const [itemKey, value] of entries) {
    const expectedKey = historyKey(expected);
    if (itemKey !== expectedKey) {
      throw new InvalidSessionRecordError(expectedKey, 'history item is missing', scope);
    }
    const stored = readStored(itemKey, value, scope).value;
    // Text messages and tool calls/results by hand (the schema's result, much faster cold);
    // anything else, a bad value included, through the schema and its typed error.
    const item = plainItem(stored) ?? validateStored(itemKey, stored, Item, scope);
    if (!turn.accepts(item)) {
      throw new InvalidSessionRecordError(
        itemKey,
        'the tool result answers no tool call of its turn',
        { ...scope, field: 'callId' },
      );
    }
    items.push(item);
    expected += 1;
  }
  if (expected < to) {
    throw new InvalidSessionRecordError(
      historyKey(expected),
      `history item is missing (the record says the history has ${to} items)`,
      scope,
    );
  }
  return items;
}
