import type { Item } from '../items/item.js';
import { MemorySessionStore } from '../persistence/kv/memory-session-store.js';
import type { SessionRecord, SessionStore } from '../persistence/session-store.js';

/**
 * The session a RunState of an in-memory run carries (its record and history), restored into a
 * fresh memory store, so that `agent.resume(state)` continues a run that no store holds.
 */
export async function carriedSessionStore(session: {
  record: Record<string, unknown>;
  items: Item[];
}): Promise<SessionStore> {
  const store = new MemorySessionStore();
  const { version: _version, ...record } = session.record as unknown as SessionRecord;
  await store.create({ ...record, historyLength: session.items.length }, session.items);
  return store;
}
