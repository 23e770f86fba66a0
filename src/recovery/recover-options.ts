import type { SessionKey } from '../persistence/session-store.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import type { RunResult } from '../session-host/run-result.js';

export interface RecoverOptions {
  /**
   * Only runs whose lease expired at least this many ms ago (0: as soon as it expired). A
   * margin over the clock skew between processes.
   */
  olderThan: number;
  /** The user whose sessions to recover; omitted means the anonymous bucket. */
  userId?: string | undefined;
  /** At most this many sessions per call. @default 100 */
  limit?: number | undefined;
  /** Cancels the resumed runs. */
  signal?: AbortSignal | undefined;
}

/** One session `recover` tried: the resumed run's result, or why it could not be resumed. */
export interface RecoveredRun {
  key: SessionKey;
  result?: RunResult<unknown> | undefined;
  error?: unknown;
}

const NAMES = optionNames<RecoverOptions>({
  olderThan: true,
  userId: true,
  limit: true,
  signal: true,
});

export function checkRecoverOptions(options: unknown): void {
  new OptionChecker('runtime.recover()', options ?? null, NAMES)
    .nonNegativeInteger('olderThan')
    .check('olderThan', 'a non-negative integer', (v) => v !== undefined, true)
    .string('userId')
    .positiveInteger('limit')
    .instanceOf('signal', AbortSignal);
}
