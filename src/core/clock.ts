/** Time source, injected so tests never sleep. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves once `now() >= at` (immediately if already past); rejects when `signal` aborts. */
  sleepUntil(at: number, signal?: AbortSignal): Promise<void>;
}

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleepUntil: (at, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, at - Date.now()),
      );
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
