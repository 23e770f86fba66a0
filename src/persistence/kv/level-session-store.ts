import type { BatchOpHook } from './backends/kv-backend.js';
import { KvSessionStore } from './kv-session-store.js';
import { LevelBackend } from './backends/level-backend.js';
import type { RecordMigration } from '../migrations.js';
import { OptionChecker, isObject, optionNames } from '../../validation/option-checks.js';
import type { LeaseClock } from '../lease-table.js';

export interface LevelSessionStoreOptions {
  /**
   * Folder of the LevelDB database, created if missing. One process at a time may open it.
   * @default './.agentstate'
   */
  path?: string | undefined;
  /** Upgrade steps for records written with an older schema version. */
  migrations?: readonly RecordMigration[] | undefined;
  /** Where session lease expiry times come from (leases live in this process). @default the system clock */
  clock?: LeaseClock | undefined;
  /**
   * Test-only fault injection: called for each op of every write batch; if it throws, the
   * batch is dropped whole and the save fails with `SessionSaveFailedError`.
   */
  onBatchOp?: BatchOpHook | undefined;
}

const LEVEL_OPTION_NAMES = optionNames<LevelSessionStoreOptions>({
  path: true,
  migrations: true,
  clock: true,
  onBatchOp: true,
});

/** Checks the options of `new LevelSessionStore()` / `LevelSessionStore.open()` at the call. */
function checkLevelOptions(call: string, options: unknown): void {
  new OptionChecker(call, options, LEVEL_OPTION_NAMES)
    .nonEmptyString('path')
    .check(
      'migrations',
      'an array of { from, to, migrate } migrations',
      (v) =>
        Array.isArray(v) &&
        v.every(
          (m) =>
            isObject(m) &&
            Number.isInteger(m['from']) &&
            Number.isInteger(m['to']) &&
            typeof m['migrate'] === 'function',
        ),
    )
    .implements('clock', 'LeaseClock', ['now'])
    .function('onBatchOp');
}

/**
 * The keys every save's check and every load read back one by one (`session-keys.ts`): the
 * record, its changes, its listing entry and the owner's totals. The backend answers those reads
 * with what it last wrote there, for as many keys as the store remembers records and totals of.
 */
const READ_BACK = { prefixes: ['s!', 'c!', 'l!', 't!'], keys: 4 * 1000 };

/** Default LevelDB folder. */
export const DEFAULT_LEVEL_PATH = './.agentstate';

/**
 * The default {@link SessionStore}: sessions, history, journal and indexes in LevelDB, each
 * step written as one atomic batch.
 *
 * Construction opens the folder (LevelDB opens lazily, queueing operations until ready) and
 * does nothing else; use {@link LevelSessionStore.open} to surface open errors (a missing
 * permission, a folder locked by another process) up front.
 *
 * @example
 * const store = await LevelSessionStore.open({ path: './data/sessions' });
 * try {
 *   const record = await store.load({ sessionId: 'chat-1', userId: 'alice' });
 * } finally {
 *   await store.close();
 * }
 */
export class LevelSessionStore extends KvSessionStore {
  /** The LevelDB folder this store uses. */
  readonly path: string;
  private readonly level: LevelBackend;

  /**
   * @throws TypeError for an unknown option name (naming the closest valid one), an empty or
   *   non-string `path`, or `migrations` / `onBatchOp` of the wrong kind.
   */
  constructor(options: LevelSessionStoreOptions = {}) {
    checkLevelOptions('new LevelSessionStore()', options);
    const path = options.path ?? DEFAULT_LEVEL_PATH;
    const level = new LevelBackend(path, { onBatchOp: options.onBatchOp, readBack: READ_BACK });
    super(level, { migrations: options.migrations, clock: options.clock });
    this.path = path;
    this.level = level;
  }

  /** Creates a store and waits until its database is open. */
  static open(options: LevelSessionStoreOptions = {}): Promise<LevelSessionStore> {
    checkLevelOptions('LevelSessionStore.open()', options);
    const store = new LevelSessionStore(options);
    return store.ready().then(() => store);
  }

  /** Resolves once the database is open; rejects if it cannot be opened. */
  async ready(): Promise<void> {
    await this.level.open();
  }
}
