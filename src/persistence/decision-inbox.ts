import type { SessionKey } from './session-store.js';

/** Approval decisions recorded for a run, for whichever process continues it. */
export interface DecisionSubmission {
  key: SessionKey;
  /** The run they were made on (the session's run when submitted). */
  runId: string;
  /** Plain-JSON decisions (`ApprovalDecision`s, checked by the runtime). */
  decisions: unknown[];
  /** Epoch milliseconds. */
  at: number;
}

/** A submission waiting in a store's decision inbox. */
export interface SubmittedDecisions extends DecisionSubmission {
  /** Its place in the inbox (submission order). */
  id: string;
}

/** A live subscription to a store's decision inbox (`watchDecisions`). */
export interface DecisionWatch {
  /** Ends the subscription (and its connection). */
  close(): Promise<void>;
  /** Optional: `true` while no notification is needed (still heard, holding no process alive). */
  idle?(idle: boolean): void;
}

/**
 * The decision inbox of a store shared by processes: decisions submitted in one process are
 * applied by another (`agent.submitDecisions`, the scheduler applies them). Optional.
 */
export interface DecisionInbox {
  /** Records a submission and notifies watchers, in one atomic write. */
  submitDecisions(submission: DecisionSubmission): Promise<void>;
  /**
   * The oldest submissions (`limit` rows at most), every owner, each checked against its key:
   * a damaged one is in `damaged` (`InvalidSessionRecordError`), never applied.
   */
  submittedDecisions(query: {
    limit: number;
  }): Promise<{ submitted: SubmittedDecisions[]; damaged: Error[] }>;
  /** Removes a submission once it was applied (or found stale). */
  dropDecisions(entry: SubmittedDecisions): Promise<void>;
  /**
   * Calls `onSubmitted` after each submission (in any process) until closed; `onLost` once if
   * the subscription breaks (watch again to resume). Rejects if it cannot subscribe.
   */
  watchDecisions(onSubmitted: () => void, onLost: (error: unknown) => void): Promise<DecisionWatch>;
}
