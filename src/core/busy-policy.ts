/**
 * What happens to a message sent to a session whose run this process is executing:
 * - `'reject'`: it raises `RunInProgressError` and nothing is stored (the default).
 * - `'queue'`: it waits until the running run ends, then starts the session's next run;
 *   queued messages start their runs one at a time, in the order they were sent.
 * - `'interrupt'`: the running run is cancelled (it ends `cancelled`, its caller gets
 *   `RunCancelledError`, its open tool calls are answered as cancelled), then the message
 *   starts a run.
 */
export type WhileBusy = 'reject' | 'queue' | 'interrupt';

export const WHILE_BUSY_MODES: readonly WhileBusy[] = ['reject', 'queue', 'interrupt'];

/** What option checks say a bad value should have been. */
export const WHILE_BUSY_EXPECTED = "'reject', 'queue' or 'interrupt'";

export const isWhileBusy = (value: unknown): value is WhileBusy =>
  WHILE_BUSY_MODES.includes(value as WhileBusy);
