import type { Drained } from '../actors/session-log.js';
import { SessionSaveFailedError, StoreUnavailableError } from '../errors/session-errors.js';

/**
 * The waits (ms, on the session's clock) before each new try of a save that carries a finished
 * tool call's result while the store cannot be reached: about 30 s in all, then the save fails.
 */
export const SAVE_RETRY_WAITS_MS: readonly number[] = Object.freeze([
  500, 1_000, 2_000, 4_000, 8_000, 15_000,
]);

/**
 * How long to wait before saving again after the failed try number `tried` (0 for the first),
 * or `undefined` to fail now. A finished tool call's result is known to this process only:
 * lost, its call would be in doubt on resume, so its save is tried again while the store is
 * unreachable (a conflict, a lost lease or a damaged record fails at once, as any save does).
 * A model step's result is not kept: the step runs again harmlessly.
 */
export function saveRetryWait(error: unknown, drained: Drained, tried: number): number | undefined {
  const unreachable =
    error instanceof StoreUnavailableError ||
    (error instanceof SessionSaveFailedError && error.unreachable);
  if (!unreachable || !drained.journal.some((e) => e.kind === 'tool')) return undefined;
  return SAVE_RETRY_WAITS_MS[tried];
}
