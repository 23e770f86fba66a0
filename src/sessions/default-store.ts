import { resolve } from 'node:path';
import { DEFAULT_LEVEL_PATH, LevelSessionStore } from '../persistence/kv/level-session-store.js';

/**
 * Process-wide state, on purpose (the one registry the runtime keeps; every other store is
 * passed in). LevelDB locks its folder per process: a second handle on a folder this process
 * already opened fails with a lock error. Agents are made independently (`new Agent()` without
 * a store, in two modules of one app) and each must reach the same default folder, so the
 * handle cannot belong to one agent or runtime: it belongs to the process, keyed by the
 * resolved path, and `closeDefaultStores()` (exported) ends it. Apps that want no shared state
 * pass `store` (then nothing is opened here).
 */
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
