import type { Clock } from '../core/clock.js';

/** The clock XState's scheduler calls (`createActor(machine, { clock })`). */
export interface XStateClock {
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

/**
 * XState's delayed events (`after`, delayed `sendTo`/`raise`) on the host's injected clock: a
 * delay becomes a sleep until its absolute due time, so a fake clock drives them in tests, and
 * the host can tell when the timers due by now have fired (`settled`). The due times themselves
 * are recorded by the instance (`HostMeta.timers`), which reschedules them on restore.
 */
export class DurableClock implements XStateClock {
  private readonly pending = new Map<
    number,
    { at: number; stop: AbortController; done: Promise<void> }
  >();
  private next = 0;

  constructor(
    private readonly clock: Clock,
    /** Runs a timer's callback (the instance marks its events as a timer's). */
    private readonly fire: (callback: () => void) => void,
  ) {}

  setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    const id = this.next++;
    const stop = new AbortController();
    const at = this.clock.now() + Math.max(0, timeout);
    const done = this.clock.sleepUntil(at, stop.signal).then(
      () => {
        if (!this.pending.delete(id)) return;
        this.fire(() => fn());
      },
      () => undefined, // cleared
    );
    this.pending.set(id, { at, stop, done });
    return id;
  }

  clearTimeout(id: unknown): void {
    const timer = this.pending.get(id as number);
    if (!timer) return;
    this.pending.delete(id as number);
    timer.stop.abort();
  }

  /** Resolves once every timer due at or before `now` has fired (or was cleared). */
  async settled(now: number): Promise<void> {
    for (;;) {
      const due = [...this.pending.values()].filter((t) => t.at <= now);
      if (due.length === 0) return;
      await Promise.all(due.map((t) => t.done));
    }
  }

  /** Clears every timer (the instance is unloaded or stopped: its timers are stored). */
  clearAll(): void {
    for (const id of [...this.pending.keys()]) this.clearTimeout(id);
  }
}
