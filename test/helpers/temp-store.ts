import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LevelSessionStore,
  type LevelSessionStoreOptions,
} from '../../src/persistence/kv/level-session-store.js';

/** A LevelDB session store in a fresh temp folder. */
export interface TempStore {
  store: LevelSessionStore;
  /** The temp folder (the database lives in `<folder>/db`). */
  folder: string;
  /** The LevelDB folder itself. */
  path: string;
  /** Closes the store (if still open) and removes the folder. */
  cleanup(): Promise<void>;
}

/** A temp folder under the OS temp dir, for tests that open the database themselves. */
export async function tempFolder(prefix = 'agentstate-session-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function openTempStore(
  options: Omit<LevelSessionStoreOptions, 'path'> = {},
): Promise<TempStore> {
  const folder = await tempFolder();
  const path = join(folder, 'db');
  const store = await LevelSessionStore.open({ ...options, path });
  let closed = false;
  return {
    store,
    folder,
    path,
    async cleanup() {
      if (!closed) {
        closed = true;
        await store.close().catch(() => undefined);
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Tracks temp stores and folders created in a test file; call `cleanupAll` in afterEach.
 * @example
 * const temps = new TempStores();
 * afterEach(() => temps.cleanupAll());
 * const { store } = await temps.open();
 */
export class TempStores {
  private readonly cleanups: (() => Promise<void>)[] = [];

  async open(options: Omit<LevelSessionStoreOptions, 'path'> = {}): Promise<TempStore> {
    const temp = await openTempStore(options);
    this.cleanups.push(() => temp.cleanup());
    return temp;
  }

  async folder(): Promise<string> {
    const folder = await tempFolder();
    this.cleanups.push(() => rm(folder, { recursive: true, force: true }));
    return folder;
  }

  /** Registers extra cleanup (e.g. closing a reopened store); runs before folders are removed. */
  defer(cleanup: () => Promise<void>): void {
    this.cleanups.unshift(cleanup);
  }

  async cleanupAll(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
  }
}
