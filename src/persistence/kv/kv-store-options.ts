import type { LeaseClock } from '../lease-table.js';
import type { RecordMigration } from '../migrations.js';
import type { GroupLimits } from './write-queue.js';

export interface KvSessionStoreOptions {
  /** Upgrade steps for records written with an older schema version. */
  migrations?: readonly RecordMigration[] | undefined;
  /** Where lease expiry times come from. @default the system clock */
  clock?: LeaseClock | undefined;
  /** How large one group of saves written as one batch may grow. @default DEFAULT_GROUP_LIMITS */
  groupLimits?: GroupLimits | undefined;
  /**
   * Whether a save may write only the record's changes since the whole record this store last
   * wrote (`record-changes.ts`); off, every save writes the whole record. Either way every
   * form is read. Off by default: it writes about a quarter fewer bytes, but finding the
   * changes cost more time than it saved (docs/design/performance.md, item 2). @default false
   * @internal
   */
  recordChanges?: boolean | undefined;
  /**
   * Whether the store keeps its performance caches (`written-cache.ts`): what it last wrote per
   * record and owner, so a read of those bytes needs no decode. Off, it is the plain store, which
   * decodes and checks every value it reads (and writes every record whole); both keep the
   * contract. @default true @internal
   */
  cache?: boolean | undefined;
  /**
   * Test-only: a save does not check its lease (no fencing), so a writer whose lease was taken
   * over still writes. Never set it in an app: it exists so that a test can show a checker (the
   * many-writers simulation) finds the stale writes fencing prevents. @default false @internal
   */
  unsafeSkipFencing?: boolean | undefined;
}
