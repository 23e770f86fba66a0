import { RunInProgressError } from '../errors/session-errors.js';
import type {
  SessionKey,
  SessionLease,
  SessionLeases,
  SessionStore,
} from '../persistence/session-store.js';
import type { Clock } from './clock.js';

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
 * Why a released lease stops its renewal loop: a frozen plain value, because `abort()` without
 * a reason builds a `DOMException` (with its stack) per release, which W2 showed in its profile.
 */
const RELEASED = Object.freeze({ name: 'AbortError', message: 'the lease was released' });

/**
 * The lease of one running action: taken before anything is loaded (another owner's live
 * lease is `RunInProgressError` before any model or tool call), renewed every `ttlMs / 3` by
 * the clock while the action runs, released when it returns. Its saves carry it (fencing).
 */
export class RunLease {
  private readonly stop = new AbortController();
  private renewing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly store: SessionStore & SessionLeases,
    readonly lease: SessionLease,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  static async take(
    store: SessionStore & SessionLeases,
    key: SessionKey,
    owner: string,
    ttlMs: number,
    clock: Clock,
    action: string,
  ): Promise<RunLease> {
    const lease = await store.acquireLease(key, owner, ttlMs);
    if (!lease) throw new RunInProgressError(key.sessionId, action, true);
    const held = new RunLease(store, lease, ttlMs, clock);
    held.renewing = held.renewLoop();
    return held;
  }

  /**
   * Runs `work` holding the session's lease (`RunInProgressError` when another owner holds a
   * live one), renewed while it runs and released after it.
   */
  static async holding<R>(
    store: SessionStore & SessionLeases,
    key: SessionKey,
    settings: { owner: string; ttlMs: number; clock: Clock; action: string },
    work: (lease: SessionLease) => Promise<R>,
  ): Promise<R> {
    const { owner, ttlMs, clock, action } = settings;
    const held = await RunLease.take(store, key, owner, ttlMs, clock, action);
    try {
      return await work(held.lease);
    } finally {
      await held.release();
    }
  }

  /** Stops renewing and gives the lease up. */
  async release(): Promise<void> {
    this.stop.abort(RELEASED);
    await this.renewing;
    await this.store.releaseLease(this.lease).catch(() => undefined); // it expires anyway
  }

  private async renewLoop(): Promise<void> {
    const { signal } = this.stop;
    while (!signal.aborted) {
      try {
        await this.clock.sleepUntil(this.clock.now() + Math.ceil(this.ttlMs / 3), signal);
        // A lost lease needs no action here: the run's next save is refused (LeaseLostError).
        if ((await this.store.renewLease(this.lease, this.ttlMs)) === undefined) return;
      } catch {
        if (signal.aborted) return;
        // The store is unreachable: try again at the next tick; the lease may expire meanwhile.
      }
    }
  }
}
