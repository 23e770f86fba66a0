import type { BatchOpHook } from './backends/kv-backend.js';
import { KvSessionStore } from './kv-session-store.js';
import { MemoryBackend } from './backends/memory-backend.js';
import type { RecordMigration } from '../migrations.js';
import type { LeaseClock } from '../lease-table.js';

export interface MemorySessionStoreOptions {
  /** Upgrade steps for records written with an older schema version. */
  migrations?: readonly RecordMigration[] | undefined;
  /** Where session lease expiry times come from (leases live in this process). @default the system clock */
  clock?: LeaseClock | undefined;
  /**
   * Test-only fault injection: called for each op of every write batch; if it throws, the
   * batch is dropped whole and the save fails with `SessionSaveFailedError`.
   */
  onBatchOp?: BatchOpHook | undefined;
  /**
   * Test-only: a save does not check its lease (no fencing), so a writer whose lease was taken
   * over still writes. It exists so that a test can show a checker (the many-writers
   * simulation, `simulateWriters`) finds the stale writes fencing prevents. @default false
   * @internal
   */
  unsafeSkipFencing?: boolean | undefined;
}

/**
 * A {@link SessionStore} kept in memory, for tests and short-lived processes. It shares all of
 * its logic with the LevelDB store (see {@link KvSessionStore}), so both behave the same:
 * versions, atomic batches, user partitions, record validation and migrations.
 *
 * @example
 * const store = new MemorySessionStore();
 * await store.create({ sessionId: 's1', userId: 'alice', ...rest });
 */
export class MemorySessionStore extends KvSessionStore {
  constructor(options: MemorySessionStoreOptions = {}) {
    super(new MemoryBackend({ onBatchOp: options.onBatchOp }), {
      migrations: options.migrations,
      clock: options.clock,
      unsafeSkipFencing: options.unsafeSkipFencing,
    });
  }
}
