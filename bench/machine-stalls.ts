/**
 * How much of its time the machine itself takes away: a loop that does nothing but read the
 * clock (no allocation, no I/O, no await) runs for `durationMs`, and every pause between two
 * reads longer than `gapMs` is time the process was not running (the virtual CPU descheduled
 * by its host, or another process on the core). On an idle physical machine the share is
 * near 0; on a shared virtual machine it says how far any wall-clock figure of the same run
 * can be off, and why short figures (W3's import, ~100 ms) vary more than long ones.
 */
export interface MachineStalls {
  /** How long the loop ran, in ms. */
  durationMs: number;
  /** Share of `durationMs` lost in pauses longer than `gapMs` (0 to 1). */
  lostShare: number;
  /** The longest pause, in ms. */
  longestMs: number;
  /** Pauses longer than `gapMs`. */
  pauses: number;
  gapMs: number;
}

/** Measures the machine's pauses for `durationMs` (blocks the event loop meanwhile). */
export function measureStalls(durationMs = 2000, gapMs = 5): MachineStalls {
  const start = performance.now();
  let last = start;
  let lost = 0;
  let longest = 0;
  let pauses = 0;
  while (last - start < durationMs) {
    const now = performance.now();
    const gap = now - last;
    if (gap > gapMs) {
      lost += gap;
      pauses += 1;
      longest = Math.max(longest, gap);
    }
    last = now;
  }
  const duration = last - start;
  return { durationMs: duration, lostShare: lost / duration, longestMs: longest, pauses, gapMs };
}

/** One line for the bench's header: the share lost, in how many pauses, and the longest. */
export function describeStalls(stalls: MachineStalls): string {
  return (
    `a clock-reading loop lost ${(stalls.lostShare * 100).toFixed(0)}% of ` +
    `${(stalls.durationMs / 1000).toFixed(1)} s in ${stalls.pauses} pause(s) over ` +
    `${stalls.gapMs} ms (longest ${stalls.longestMs.toFixed(0)} ms)`
  );
}
