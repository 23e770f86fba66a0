/**
 * What happens to a message sent to a session whose run is executing (in this process, or in
 * another one holding the session's lease):
 * - `'reject'`: it raises `RunInProgressError` and nothing is stored (the default).
 * - `'queue'`: it is stored in the session's message inbox (with a store that keeps one; else
 *   it waits in memory) and becomes the session's next run once the running one ends, exactly
 *   once and in the order sent, also after a crash or from another process.
 * - `'steer'`: it is stored like `'queue'` and added to the running run's history before its
 *   next model call; if the run ends first, it becomes the next run, as with `'queue'`.
 * - `'interrupt'`: the running run is cancelled (it ends `cancelled`, its caller gets
 *   `RunCancelledError`, its open tool calls are answered as cancelled), then the message
 *   starts a run. A message whose run a later `'interrupt'` cancels (even before its first step)
 *   is in the history, its run ended `cancelled`.
 */
export type WhileBusy = 'reject' | 'queue' | 'steer' | 'interrupt';

export const WHILE_BUSY_MODES: readonly WhileBusy[] = ['reject', 'queue', 'steer', 'interrupt'];

/** What option checks say a bad value should have been. */
export const WHILE_BUSY_EXPECTED = "'reject', 'queue', 'steer' or 'interrupt'";

export const isWhileBusy = (value: unknown): value is WhileBusy =>
  WHILE_BUSY_MODES.includes(value as WhileBusy);

/** Whether a message with this policy is stored in the session's inbox while the run is busy. */
export const queuesWhileBusy = (policy: WhileBusy | undefined): policy is 'queue' | 'steer' =>
  policy === 'queue' || policy === 'steer';
