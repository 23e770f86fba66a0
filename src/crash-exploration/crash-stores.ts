import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import { MemoryBackend } from '../persistence/kv/backends/memory-backend.js';
import { KvSessionStore } from '../persistence/kv/kv-session-store.js';
import { LevelSessionStore } from '../persistence/kv/level-session-store.js';
import type { SessionStore } from '../persistence/session-store.js';

/**
 * The data of one exploration point: empty at first, opened again by each simulated process
 * (the handle a crashed process held is dropped, its data kept), destroyed at the point's end.
 */
export interface CrashStoreSpace {
  /** A new handle on the point's data, as a new process opens it. */
  open(): Promise<SessionStore>;
  /** Frees the data (closes the last handle). */
  destroy(): Promise<void>;
  /** The LevelDB folder of a `'level'` space (where a child process opens it). */
  readonly path?: string | undefined;
}

/**
 * Where the exploration keeps its data: `'memory'` (the in-memory store's backend, a new store
 * object per process), `'level'` (LevelDB in a temp folder, closed and opened again per
 * process), or a function giving a new, empty space per point (another store).
 */
export type CrashStores = 'memory' | 'level' | (() => Promise<CrashStoreSpace>);

/** A space on the in-memory backend: every process's store object shares its data. */
function memorySpace(clock: Clock | undefined): CrashStoreSpace {
  const backend = new MemoryBackend();
  return {
    open: () => Promise.resolve(new KvSessionStore(backend, { clock })),
    destroy: () => Promise.resolve(),
  };
}

/** A space in a temp LevelDB folder: a process's handle is closed before the next one opens. */
async function levelSpace(clock: Clock | undefined): Promise<CrashStoreSpace> {
  const dir = await mkdtemp(join(tmpdir(), 'agentstate-crash-'));
  const path = join(dir, 'db');
  let last: SessionStore | undefined;
  const close = async (): Promise<void> => {
    await last?.close().catch(() => undefined);
    last = undefined;
  };
  return {
    path,
    open: async () => {
      await close();
      last = await LevelSessionStore.open({ path, clock });
      return last;
    },
    destroy: async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A new, empty space for one point. */
export function openSpace(stores: CrashStores, clock: Clock | undefined): Promise<CrashStoreSpace> {
  if (stores === 'memory') return Promise.resolve(memorySpace(clock));
  if (stores === 'level') return levelSpace(clock);
  return stores();
}
