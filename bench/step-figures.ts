import { headTail, mean, median } from './stats.js';

/** The figures of one run of the 1,000-step workflow, on any engine (milliseconds). */
export interface StepFigures {
  steps: number;
  /** From starting the workflow to its result. */
  totalMs: number;
  /** The median time of one step. */
  medianStepMs: number;
  /** Mean time of a step over the first 10% of steps, and over the last 10%. */
  firstStepMs: number;
  lastStepMs: number;
}

/**
 * The figures from when each step started (`performance.now()`), when the workflow started and
 * when its result came back. Step i takes from its start to the next step's start (the last
 * one's: to the result), so it covers the step, saving what it did and invoking the next.
 */
export function stepFigures(
  starts: readonly number[],
  started: number,
  ended: number,
): StepFigures {
  const times = starts.map((start, i) => (starts[i + 1] ?? ended) - start);
  const { head, tail } = headTail(times);
  return {
    steps: starts.length,
    totalMs: ended - started,
    medianStepMs: median(times),
    firstStepMs: mean(head),
    lastStepMs: mean(tail),
  };
}
