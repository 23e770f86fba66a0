/**
 * How a tool call in doubt after a crash (started, not finished) was resolved: journaled in its
 * tool entry's output (`inDoubt`) beside the result item it led to.
 */
export interface InDoubtRecord {
  /** `retried`: it ran again; `failed`: its outcome was reported unknown; `reconciled`: `reconcile` gave its result. */
  resolution: 'retried' | 'failed' | 'reconciled';
  /** Set when `reconcile` was asked: what it answered (`'error'`: it threw). */
  reconcile?: 'result' | 'retry' | 'unknown' | 'error' | undefined;
}
