import type { Item } from '../../items/item.js';
import { checkHistoryEntries } from '../history-reader.js';
import { historyRange } from '../session-keys.js';
import type { SessionKey } from '../session-store.js';
import type { KvBackend } from './backends/kv-backend.js';

/**
 * Reads history positions `[from, to)` and proves the log whole: the keys must be exactly
 * `from, from + 1, ..., to - 1` (a deleted item is named, not skipped), and each value's seal
 * covers its key, so an item moved or copied to another position fails too.
 */
export async function readHistoryRange(
  backend: KvBackend,
  key: SessionKey,
  from: number,
  to: number,
): Promise<Item[]> {
  return checkHistoryEntries(key, from, to, backend.iterate(historyRange(key, from, to)));
}
