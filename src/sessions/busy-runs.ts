import { RunInProgressError } from '../errors/session-errors.js';
import { RunCancelledError } from '../errors/run-errors.js';
import type { SessionAction } from '../actions/session-action.js';
import { QueuedWaiters, type QueuedWaiter } from './queued-waiters.js';

/** A run a runtime is executing: when it has ended, and how to cancel it. */
interface BusyRun {
  ended: Promise<void>;
  /** What the run's action returns (a steer taken by the run is answered with it). */
  result: Promise<unknown>;
  cancel: AbortController;
}

/**
 * The keys (`cacheKey`) of the sessions whose run is executing, shared by the runtimes that run
 * one store in this process (an Agent's and its AgentSessions'), and how to wait for each run
 * to end (`whileBusy: 'queue'`) or cancel it (`'interrupt'`), see `WhileBusy`.
 */
export class BusyRuns extends Set<string> {
  private readonly runs = new Map<string, BusyRun>();
  /** The callers here awaiting messages queued in a store's inbox (`MessageQueue`). */
  readonly waiters = new QueuedWaiters();

  /**
   * What an action that runs does while `executing` is busy: `'reject'` (or a run this
   * runtime does not track) raises `RunInProgressError`; `'queue'` resolves once the run has
   * ended (`RunCancelledError` if the action's own signal aborts first); `'interrupt'`
   * cancels the run first. The caller checks again after it resolves:
   * another queued message may have taken the session meanwhile.
   */
  async whenFree(executing: string, sessionId: string, action: SessionAction<unknown>) {
    const policy = action.whileBusy ?? 'reject';
    const run = this.runs.get(executing);
    if (policy === 'reject' || !run) throw new RunInProgressError(sessionId, action.name);
    const own = action.observe?.signal;
    if (own?.aborted) throw new RunCancelledError({ sessionId });
    if (policy === 'interrupt') run.cancel.abort();
    if (!own) return run.ended;
    // The caller may give up while it waits: its message was never stored.
    let onAbort = noop;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new RunCancelledError({ sessionId }));
      own.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([run.ended, aborted]);
    } finally {
      own.removeEventListener('abort', onAbort);
    }
  }

  /** When the run executing `executing` has ended (resolved at once when none is tracked). */
  ended(executing: string): Promise<void> {
    return this.runs.get(executing)?.ended ?? Promise.resolve();
  }

  /** Answers `waiter` with the result of the session's executing run (which took its steer). */
  follow(executing: string, waiter: QueuedWaiter): void {
    const run = this.runs.get(executing);
    if (run) {
      run.result.then(
        (value) => waiter.resolve(value),
        (error: unknown) => waiter.reject(error),
      );
    } else waiter.reject(new RunInProgressError(executing, 'steer'));
  }

  /**
   * Tracks the run `start` begins until it settles; `release` runs first, so a waiter finds
   * it free. `cancel` is the run's own controller (its action's `cancelSignal`), which
   * `'interrupt'` aborts.
   */
  track<R>(
    executing: string,
    cancel: AbortController,
    start: () => Promise<R>,
    release: () => void,
  ): Promise<R> {
    let running: Promise<R>;
    try {
      running = start();
    } catch (error) {
      release();
      throw error;
    }
    // `then`, not `finally` (which costs two promises more a run).
    const ended = (): void => {
      release();
      if (this.runs.get(executing) === run) this.runs.delete(executing);
    };
    const done = running.then(
      (value) => {
        ended();
        return value;
      },
      (error: unknown) => {
        ended();
        throw error;
      },
    );
    const run: BusyRun = { ended: done.then(noop, noop), result: done, cancel };
    this.runs.set(executing, run);
    return done;
  }
}

const noop = (): void => undefined;
