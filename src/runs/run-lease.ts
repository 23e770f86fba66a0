import { RunInProgressError } from '../errors/session-errors.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { LeaseReleased, SessionLease, SessionLeases } from '../persistence/session-leases.js';
import type { Clock } from '../core/clock.js';

/** How a runtime holds session leases: who it is and how long a lease lasts unrenewed. */
export interface LeaseSettings {
  /**
   * This process's owner id in leases; unique per process (two processes with one id would
   * both run a session). @default a new random id per runtime
   */
  owner?: string | undefined;
  /**
   * How long a lease lasts without renewal: after a crash, another process may resume the run
   * this long after the last renewal. Renewed every third of it while the run lives.
   * @default 30000
   */
  ttlMs?: number | undefined;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Why a pending renewal wait stops when the last lease is released: a frozen plain value,
 * because `abort()` without a reason builds a `DOMException` (with its stack) each time, which
 * W1 (one action at a time, so every release empties the set) showed in its profile.
 */
const RELEASED = Object.freeze({ name: 'AbortError', message: 'the last lease was released' });

/** One action's lease while it runs, and the renewal of it under way (if any). */
interface HeldLease {
  readonly lease: SessionLease;
  renewing: Promise<void> | undefined;
}

/**
 * The leases of one runtime's running actions (one store, one owner). Each is taken before
 * anything is loaded (another owner's live lease is `RunInProgressError` before any model or
 * tool call), renewed while its action runs and released when it returns; its saves carry it
 * (fencing). Renewal is one wait on the clock for all of them: every `ttlMs / 3` each lease
 * then held is renewed, so none goes longer than that unrenewed, and an action in flight holds
 * no timer, loop or abort controller of its own (1,000 actions in flight hold one wait).
 */
export class RunLeases {
  private readonly held = new Set<HeldLease>();
  /** Aborts the pending wait; set while one is pending. */
  private waiting: AbortController | undefined;
  /** Whether a round of renewals is under way (the next wait starts when it ends). */
  private renewingAll = false;

  constructor(
    private readonly store: SessionStore & SessionLeases,
    private readonly settings: {
      owner: string;
      ttlMs: number;
      clock: Clock;
      /** Called at each round of renewals (the runtime polls for cancels then). */
      onRenew?: (() => void) | undefined;
    },
  ) {}

  /**
   * Runs `work` holding the session's lease (`RunInProgressError` when another owner holds a
   * live one), renewed while it runs and released after it (a chain of callbacks: nothing of
   * this stays suspended while the action runs). `released` hears what the release told
   * (`LeaseReleased`), before the returned promise settles.
   */
  holding<R>(
    key: SessionKey,
    action: string,
    work: (lease: SessionLease) => Promise<R>,
    released?: (told: LeaseReleased | void) => void,
  ): Promise<R> {
    const release = (held: HeldLease): Promise<unknown> =>
      released ? this.release(held).then(released) : this.release(held);
    return this.take(key, action).then((held) =>
      attempt(() => work(held.lease)).then(
        (result) => release(held).then(() => result),
        (error: unknown) =>
          release(held).then(() => {
            throw error;
          }),
      ),
    );
  }

  private async take(key: SessionKey, action: string): Promise<HeldLease> {
    const { owner, ttlMs } = this.settings;
    const lease = await this.store.acquireLease(key, owner, ttlMs);
    if (!lease) throw new RunInProgressError(key.sessionId, action, true);
    const held: HeldLease = { lease, renewing: undefined };
    this.held.add(held);
    if (!this.waiting && !this.renewingAll) this.wait();
    return held;
  }

  /** Stops renewing the lease (after a renewal under way) and gives it up. */
  private release(held: HeldLease): Promise<LeaseReleased | void> {
    this.held.delete(held);
    if (this.held.size === 0 && this.waiting) {
      // Nothing left to renew: the pending wait (a timer on the system clock) ends now.
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting.abort(RELEASED);
    }
    return held.renewing ? this.releaseRenewed(held) : this.releaseLease(held);
  }

  private async releaseRenewed(held: HeldLease): Promise<LeaseReleased | void> {
    while (held.renewing) await held.renewing;
    return this.releaseLease(held);
  }

  private releaseLease(held: HeldLease): Promise<LeaseReleased | void> {
    return this.store.releaseLease(held.lease).catch(() => undefined); // it expires anyway
  }

  /** Waits `ttlMs / 3`, then renews every lease held. */
  private wait(): void {
    const { clock, ttlMs } = this.settings;
    const waiting = new AbortController();
    this.waiting = waiting;
    clock.sleepUntil(clock.now() + Math.ceil(ttlMs / 3), waiting.signal).then(
      () => {
        if (this.waiting === waiting) void this.renewAll();
      },
      () => {
        // Aborted by a release (a new wait may already be pending); else the clock failed:
        // wait again.
        if (this.waiting === waiting) this.wait();
      },
    );
  }

  private async renewAll(): Promise<void> {
    this.waiting = undefined;
    this.renewingAll = true;
    const { ttlMs } = this.settings;
    this.settings.onRenew?.();
    await Promise.all(
      Array.from(this.held, (held) => {
        held.renewing = Promise.resolve(held.lease)
          .then((lease) => this.store.renewLease(lease, ttlMs))
          .then(
            (renewed) => {
              held.renewing = undefined;
              // Lost: no action here; the run's next save is refused (LeaseLostError).
              if (renewed === undefined) this.held.delete(held);
            },
            () => {
              // The store is unreachable: try again at the next tick (it may expire meanwhile).
              held.renewing = undefined;
            },
          );
        return held.renewing;
      }),
    );
    this.renewingAll = false;
    if (this.held.size > 0 && !this.waiting) this.wait();
  }
}

/** `work()`, a synchronous throw turned into a rejection (as in an async function). */
function attempt<R>(work: () => Promise<R>): Promise<R> {
  try {
    return work();
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rethrown as thrown
    return Promise.reject(error);
  }
}
