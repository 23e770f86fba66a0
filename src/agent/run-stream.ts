import type { StepProgress } from '../actors/step-progress.js';
import { AsyncQueue } from '../core/async-queue.js';
import type { RunResult } from '../session-host/run-result.js';
import { runSnapshotEvents, type RunSnapshotEvent } from '../runs/run-snapshot-events.js';
import type { ActionObservers } from '../session-host/action-observers.js';

/** Typed events of `agent.stream()`. */
export type RunStreamEvent<T = string> =
  StepProgress | RunSnapshotEvent | { type: 'run_finished'; result: RunResult<T> };

/**
 * An async iterable of run events; `result` resolves with the final result when it ends.
 * Leaving the iteration early (`break`, `return`, a throw in the loop) cancels the run, which
 * ends `cancelled` (`result` rejects with `RunCancelledError`); call `detach()` first to stop
 * reading and let the run go on (`result` still settles).
 */
export interface RunStream<T = string> extends AsyncIterable<RunStreamEvent<T>> {
  readonly result: Promise<RunResult<T>>;
  /** Leaving the iteration no longer cancels the run. */
  detach(): void;
}

/**
 * Wires a run's progress and snapshots into a stream, and its outcome into `result`. The run
 * gets a signal that the caller's `signal` aborts, and so does leaving the iteration early
 * (unless detached).
 */
export function createRunStream<T>(
  start: (observers: ActionObservers) => Promise<RunResult<T>>,
  signal?: AbortSignal,
): RunStream<T> {
  const queue = new AsyncQueue<RunStreamEvent<T>>();
  const reader = new AbortController();
  const runSignal = signal ? AbortSignal.any([signal, reader.signal]) : reader.signal;
  let detached = false;
  let settled = false;
  const onRunSnapshot = runSnapshotEvents((e) => queue.push(e));
  const result = start({ progress: (e) => queue.push(e), onRunSnapshot, signal: runSignal }).then(
    (r) => {
      settled = true;
      queue.push({ type: 'run_finished', result: r });
      queue.end();
      return r;
    },
    (error: unknown) => {
      settled = true;
      queue.fail(error);
      throw error;
    },
  );
  result.catch(() => undefined); // the stream's reader sees the error; avoid an unhandled rejection
  return {
    result,
    detach: () => {
      detached = true;
    },
    [Symbol.asyncIterator]: () => {
      const events = queue[Symbol.asyncIterator]();
      return {
        next: () => events.next(),
        // Called when the reader leaves the loop early: the run stops with it.
        return: () => {
          if (!detached && !settled) reader.abort();
          queue.end();
          return Promise.resolve({ value: undefined, done: true as const });
        },
      };
    },
  };
}
