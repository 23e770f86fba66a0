/** Small async helpers for tests: deferred promises and real zero-delay yields (no sleeps). */

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Yields to the event loop once (a macrotask), so other work interleaves. */
export const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A zero-delay timer (a timer-phase macrotask). */
export const zeroTimeout = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Awaits `n` microtasks. */
export async function microtasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/**
 * Yields to the event loop (no sleep) until `check` holds. The bound is wall time, not a count
 * of yields: on a loaded machine real I/O (LevelDB's thread pool) takes many more yields, and a
 * condition that never holds still fails the test after `boundMs`.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what = 'the condition',
  boundMs = 15_000,
): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > boundMs) throw new Error(`timed out waiting for ${what}`);
    await nextImmediate();
  }
}
