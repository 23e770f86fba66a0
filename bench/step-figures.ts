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
  /** The median time of a step over the first 10% of steps, and over the last 10%. */
  firstStepMedianMs: number;
  lastStepMedianMs: number;
  /** Hosted only: bytes and batches the store wrote per step (first 10%, last 10%, all). */
  writes?: {
    firstBytes: number;
    lastBytes: number;
    bytesPerStep: number;
    batchesPerStep: number;
    /** On PostgreSQL: the statements its store sent per step. */
    statementsPerStep?: number;
    /** On PostgreSQL: the time per step of the same statements sent again with nothing else. */
    floorStepMs?: number;
  };
}

/** When each step started: its time (`performance.now()`) and, hosted, the store's counters. */
export interface StepStarts {
  times: number[];
  bytes: number[];
}

/** The store's counters (`SessionStore.stats()`, and on PostgreSQL the statements sent) so far. */
export interface WriteCounters {
  bytesWritten: number;
  batches: number;
  statements?: number;
}

/**
 * The figures from when each step started, when the workflow started and when its result came
 * back; with `writes`, the store's counters at the start and the end. Step i takes from its start
 * to the next step's start (the last one's: to the result), so it covers the step, saving what
 * it did and invoking the next.
 */
export function stepFigures(
  starts: StepStarts,
  started: number,
  ended: number,
  writes?: { atStart: WriteCounters; atEnd: WriteCounters },
): StepFigures {
  const steps = starts.times.length;
  const times = starts.times.map((start, i) => (starts.times[i + 1] ?? ended) - start);
  const { head, tail } = headTail(times);
  const figures: StepFigures = {
    steps,
    totalMs: ended - started,
    medianStepMs: median(times),
    firstStepMs: mean(head),
    lastStepMs: mean(tail),
    firstStepMedianMs: median(head),
    lastStepMedianMs: median(tail),
  };
  if (!writes) return figures;
  const { atStart, atEnd } = writes;
  const bytes = starts.bytes.map((at, i) => (starts.bytes[i + 1] ?? atEnd.bytesWritten) - at);
  const b = headTail(bytes);
  figures.writes = {
    firstBytes: mean(b.head),
    lastBytes: mean(b.tail),
    bytesPerStep: (atEnd.bytesWritten - atStart.bytesWritten) / steps,
    batchesPerStep: (atEnd.batches - atStart.batches) / steps,
  };
  if (atEnd.statements !== undefined && atStart.statements !== undefined)
    figures.writes.statementsPerStep = (atEnd.statements - atStart.statements) / steps;
  return figures;
}
