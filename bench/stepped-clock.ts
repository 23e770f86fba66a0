import { FakeClock } from '../src/testing.js';

/**
 * A fake clock that knows its sleepers' times and tells when a new sleep starts: a bench can
 * move it from one wake-up to the next and wait, without polling, until what it woke sleeps
 * again (the scheduler's loop sleeps after every pass).
 */
export class SteppedClock extends FakeClock {
  private readonly pending = new Map<object, number>();
  private sleptWaiters: (() => void)[] = [];

  override sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    const sleep = super.sleepUntil(at, signal);
    const token = {};
    if (at > this.now()) this.pending.set(token, at);
    const done = (): void => {
      this.pending.delete(token);
    };
    sleep.then(done, done);
    const waiters = this.sleptWaiters;
    this.sleptWaiters = [];
    for (const resolve of waiters) resolve();
    return sleep;
  }

  /** The earliest time a sleeper waits for, if any sleeps. */
  nextWake(): number | undefined {
    let at: number | undefined;
    for (const t of this.pending.values()) at = at === undefined ? t : Math.min(at, t);
    return at;
  }

  /** Resolves at the next `sleepUntil` call (ask before moving the clock). */
  nextSleep(): Promise<void> {
    return new Promise((resolve) => this.sleptWaiters.push(resolve));
  }

  /**
   * Moves the clock to `end` one wake-up at a time, each time waiting until what it woke sleeps
   * again. Returns the number of wake-ups.
   */
  async stepTo(end: number): Promise<number> {
    let steps = 0;
    for (;;) {
      const at = this.nextWake();
      if (at === undefined || at > end) break;
      const slept = this.nextSleep();
      this.set(at);
      await slept;
      steps += 1;
    }
    this.set(end);
    return steps;
  }
}
