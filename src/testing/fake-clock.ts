import type { Clock } from '../core/clock.js';

interface Sleeper {
  at: number;
  resolve: () => void;
}

/** A clock that only moves when told to. `advance` wakes every sleeper whose time has come. */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Number of pending `sleepUntil` calls (lets tests wait until a timer is armed). */
  get pendingSleepers(): number {
    return this.sleepers.length;
  }

  sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    if (at <= this.current) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = { at, resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((s) => s !== sleeper);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward and wakes due sleepers. */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  set(at: number): void {
    this.current = at;
    const due = this.sleepers.filter((s) => s.at <= at);
    this.sleepers = this.sleepers.filter((s) => s.at > at);
    for (const s of due) s.resolve();
  }
}
