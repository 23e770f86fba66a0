import { fromPromise } from 'xstate';
import type { DurableTimerInput, DurableTimerOutput } from '../machines/step-actor-io.js';
import type { Clock } from '../core/clock.js';
import type { DepsOf } from './journaled-step.js';

/**
 * Waits until an absolute deadline (invariant 7). XState does not restore `after` timers; this
 * actor is restarted on restore and waits only the remainder, or fires at once if the process
 * was down when the deadline passed.
 */
export function durableTimer(clockOf: DepsOf<Clock>) {
  return fromPromise<DurableTimerOutput, DurableTimerInput>(async ({ input, signal, system }) => {
    const clock = clockOf(system);
    if (input.deadline >= Number.MAX_SAFE_INTEGER) {
      await new Promise<void>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
      );
    }
    await clock.sleepUntil(input.deadline, signal);
    return { firedAt: clock.now() };
  });
}
