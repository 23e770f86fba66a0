import type { Clock } from '../core/clock.js';
import type { FakeClock } from '../testing/fake-clock.js';

/**
 * One simulated worker's clock: the simulation's time (a `FakeClock` only the simulation moves)
 * offset by the worker's skew. Frozen, the worker is hung (a stopped process, a long pause): its
 * time still reads right, but none of its waits ends (its lease renewals stop) until it thaws.
 */
export class WorkerClock implements Clock {
  private frozen: Promise<void> | undefined;
  private thaw: (() => void) | undefined;

  constructor(
    private readonly world: FakeClock,
    /** Milliseconds this worker's clock is ahead of the simulation's time (negative: behind). */
    readonly skewMs: number,
  ) {}

  now(): number {
    return this.world.now() + this.skewMs;
  }

  async sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    await this.world.sleepUntil(at - this.skewMs, signal);
    while (this.frozen) {
      const frozen = this.frozen;
      await (signal ? untilAborted(frozen, signal) : frozen);
    }
  }

  /** Stops the worker's waits from ending (no lease renewal, no timer) until `unfreeze`. */
  freeze(): void {
    if (this.frozen) return;
    this.frozen = new Promise<void>((resolve) => (this.thaw = resolve));
  }

  /** Lets the worker's due waits end. */
  unfreeze(): void {
    const thaw = this.thaw;
    this.frozen = undefined;
    this.thaw = undefined;
    thaw?.();
  }
}

/** `frozen`, or the signal's abort (its reason thrown), whichever comes first. */
function untilAborted(frozen: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void frozen.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
