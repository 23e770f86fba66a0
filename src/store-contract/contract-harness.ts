import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import {
  wholeManifest,
  type StoreManifest,
  type StoreSupports,
} from '../persistence/store-supports.js';
import { FakeClock } from '../testing/fake-clock.js';

/**
 * The test functions of the caller's test runner (vitest, jest, mocha, `node:test`): the
 * contract suite defines its tests through them and asserts with `node:assert`, so it needs
 * no test runner of its own.
 */
export interface ContractTests {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
}

/** One store under test, with raw access to its storage for the damage tests. */
export interface StoreUnderTest {
  store: SessionStore;
  /** Replaces the stored text of a session's record with `text`, bypassing the store. */
  damageRecord(key: SessionKey, text: string): Promise<void>;
  /** Replaces the stored text of one history item with `text`, bypassing the store. */
  damageHistoryItem(key: SessionKey, position: number, text: string): Promise<void>;
  /** Replaces the stored text of every audit entry of `userId`, bypassing the store. */
  damageAudit(userId: string, text: string): Promise<void>;
  /**
   * Files the session under `deadline` in the approval-deadline index, bypassing the store
   * (an entry its record does not hold). Needed when the store claims `deadlineIndex`.
   */
  fileDeadline?(key: SessionKey, deadline: number): Promise<void>;
  /**
   * Replaces the stored text of one memory (its value, as `getMemories` reads it) with `text`,
   * bypassing the store. The memory tests' damage case runs when the harness has it.
   */
  damageMemory?(userId: string | undefined, memoryId: string, text: string): Promise<void>;
  /**
   * Replaces the stored text of one schedule's record with `text`, bypassing the store (its
   * next-tick index entry left as it is). The schedules' damage case runs when the harness has it.
   */
  damageSchedule?(userId: string | undefined, scheduleId: string, text: string): Promise<void>;
  /** Closes the store and removes what it left behind. */
  cleanup(): Promise<void>;
}

/** Opens a fresh, empty store whose leases expire by `clock` (a store's `clock` option). */
export type OpenStore = (clock: FakeClock) => Promise<StoreUnderTest>;

/** What the contract suite runs against. */
export interface StoreContractOptions {
  /** The store's name, the start of every test's title. */
  name: string;
  open: OpenStore;
  /**
   * The optional capabilities the store claims, as its `supports` manifest says them
   * (`STORE_CONTRACT`): the suite runs the required tests and those of each capability claimed,
   * and checks that the store's manifest claims exactly these. Omitted: as before manifests,
   * leases (with `leaseOf`) and the deadline index, plus the parts the three flags below name.
   */
  supports?: StoreSupports | undefined;
  /** @deprecated Use `supports: { decisionInbox: true }`. Read only without `supports`. */
  decisionInbox?: boolean | undefined;
  /**
   * @deprecated Use `supports: { messageInbox: true, queuedSessions: true }`. Read only without
   * `supports`.
   */
  messageInbox?: boolean | undefined;
  /** @deprecated Use `supports: { sessionWatches: true }`. Read only without `supports`. */
  sessionWatches?: boolean | undefined;
}

/** The capabilities whose tests the suite runs for `options`, every one named. */
export function claimedSupports(options: StoreContractOptions): StoreManifest {
  const claimed: StoreSupports = options.supports ?? {
    leases: true,
    leaseReads: true,
    deadlineIndex: true,
    decisionInbox: options.decisionInbox,
    messageInbox: options.messageInbox,
    queuedSessions: options.messageInbox,
    sessionWatches: options.sessionWatches,
  };
  return wholeManifest(claimed);
}

/** Defines one test on a fresh store, cleaned up however the test ends. */
export function storeTest(
  tests: ContractTests,
  open: OpenStore,
  title: string,
  body: (harness: StoreUnderTest, clock: FakeClock) => Promise<void>,
): void {
  tests.it(title, async () => {
    const clock = new FakeClock();
    const harness = await open(clock);
    try {
      await body(harness, clock);
    } finally {
      await harness.cleanup();
    }
  });
}
