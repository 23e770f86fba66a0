import { resolve } from 'node:path';
import { DEFAULT_LEVEL_PATH, LevelSessionStore } from '../persistence/level-session-store.js';

const opened = new Map<string, LevelSessionStore>();

/**
 * The store used when a durable run names no store: one LevelDB folder per path, opened once
 * per process (LevelDB locks its folder, so two handles in one process would fail).
 */
export function defaultStore(
  path: string = process.env.AGENTSTATE_DIR ?? DEFAULT_LEVEL_PATH,
): LevelSessionStore {
  const full = resolve(path);
  let store = opened.get(full);
  if (!store) {
    store = new LevelSessionStore({ path: full });
    opened.set(full, store);
  }
  return store;
}

/** Closes the default stores (e.g. before a process exits). */
export async function closeDefaultStores(): Promise<void> {
  const stores = [...opened.values()];
  opened.clear();
  await Promise.all(stores.map((s) => s.close()));
}
