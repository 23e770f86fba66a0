/**
 * What an operator chose for a call in doubt of a tool with `onInterrupted: 'ask'`: run it
 * again (same call id), record its result by hand without running it, or fail it (the model
 * reads that its outcome is unknown).
 */
export type InDoubtAction = 'retry' | 'result' | 'fail';

/** An operator's resolution of a call in doubt, as journaled (who, when, what). */
export interface OperatorResolution {
  action: InDoubtAction;
  /** Who resolved it, as the app named them. */
  by?: string | undefined;
  /** Epoch ms. */
  at: number;
}

/** An operator's resolution as the run holds it: with the result they gave (`'result'`, plain JSON). */
export type OperatorDecision = OperatorResolution & { result?: unknown };

/**
 * How a tool call in doubt after a crash (started, not finished) was resolved: journaled in its
 * tool entry's output (`inDoubt`) beside the result item it led to.
 */
export interface InDoubtRecord {
  /**
   * `retried`: it ran again; `failed`: its outcome was reported unknown; `reconciled`:
   * `reconcile` gave its result; `recorded`: an operator gave its result by hand.
   */
  resolution: 'retried' | 'failed' | 'reconciled' | 'recorded';
  /** Set when `reconcile` was asked: what it answered (`'error'`: it threw). */
  reconcile?: 'result' | 'retry' | 'unknown' | 'error' | undefined;
  /** Set when the run paused for an operator (`onInterrupted: 'ask'`): their resolution. */
  operator?: OperatorResolution | undefined;
}
