import { z } from 'zod';

/**
 * What an operator chose for a call in doubt of a tool with `onInterrupted: 'ask'`: run it
 * again (same call id), record its result by hand without running it, or fail it (the model
 * reads that its outcome is unknown).
 */
export const InDoubtAction = z.enum(['retry', 'result', 'fail']);
export type InDoubtAction = z.output<typeof InDoubtAction>;

/** An operator's resolution of a call in doubt, as journaled (who, when, what). */
export const OperatorResolution = z.object({
  action: InDoubtAction,
  /** Who resolved it, as the app named them. */
  by: z.string().optional(),
  /** Epoch ms. */
  at: z.number().int(),
});
export type OperatorResolution = z.output<typeof OperatorResolution>;

/** An operator's resolution as the run holds it: with the result they gave (`'result'`, plain JSON). */
export type OperatorDecision = OperatorResolution & { result?: unknown };

/**
 * How a tool call in doubt after a crash (started, not finished) was resolved: journaled in its
 * tool entry's output (`inDoubt`) beside the result item it led to.
 */
export const InDoubtRecord = z.lazy(() =>
  z.object({
    /**
     * `retried`: it ran again; `failed`: its outcome was reported unknown; `reconciled`:
     * `reconcile` gave its result; `recorded`: an operator gave its result by hand.
     */
    resolution: z.enum(['retried', 'failed', 'reconciled', 'recorded']),
    /** Set when `reconcile` was asked: what it answered (`'error'`: it threw). */
    reconcile: z.enum(['result', 'retry', 'unknown', 'error']).optional(),
    /** Set when the run paused for an operator (`onInterrupted: 'ask'`): their resolution. */
    operator: OperatorResolution.optional(),
  }),
);
export type InDoubtRecord = z.output<typeof InDoubtRecord>;
