import type { SessionKey, SessionStore } from '../persistence/session-store.js';
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
   * (an entry its record does not hold).
   */
  fileDeadline(key: SessionKey, deadline: number): Promise<void>;
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
   * The store keeps a decision inbox (`DecisionInbox`, for a store shared by processes): its
   * part of the contract runs too. @default false
   */
  decisionInbox?: boolean | undefined;
  /**
   * The store keeps a message inbox (`MessageInbox`, for `whileBusy: 'queue' | 'steer'`): its
   * part of the contract runs too. @default false
   */
  messageInbox?: boolean | undefined;
  /**
   * The store can watch a session's saves (`SessionWatches`): its part of the contract runs
   * too. @default false
   */
  sessionWatches?: boolean | undefined;
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
