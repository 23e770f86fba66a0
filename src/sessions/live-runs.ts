import { hasDecisionInbox, hasLeases } from '../persistence/store-supports.js';
import type { Clock } from '../core/clock.js';
import type { SessionAction } from '../actions/session-action.js';
import { cancelRun } from '../actions/cancel-run.js';
import {
  LiveRunCancels,
  cancelDecisions,
  cancelReason,
  cancelRequestOf,
  runCancelsOf,
} from '../persistence/run-cancels.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { runOwner } from '../runs/run-owner.js';
import { storedRun } from '../runs/stored-run.js';
import { CancelWatch } from './cancel-watch.js';
import { InvalidSessionTransitionError } from '../errors/session-errors.js';
import { RunCancelledError } from '../errors/run-errors.js';

/**
 * The runs a runtime executes, as `agent.cancel` reaches them: each action that runs gets a
 * signal that a cancel aborts (the run ends `cancelled`, its tools' signals abort, its sub-agent
 * runs stop). In this process the store's registry of live runs reaches it (two agents on one
 * LevelDB store object); from another process, a request in the store's decision inbox and its
 * notification (PostgreSQL), read by the `CancelWatch` of the runtime executing the run.
 */
export class LiveRuns {
  private readonly cancels: LiveRunCancels;
  private readonly watch: CancelWatch | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly load: (key: SessionKey) => Promise<SessionRecord>,
  ) {
    this.cancels = runCancelsOf(store) ?? new LiveRunCancels();
    const shared = hasDecisionInbox(store) && !(hasLeases(store) && store.leasesInProcess);
    this.watch = shared ? new CancelWatch(store, this.cancels, clock) : undefined;
  }

  /** Looks for cancel requests in the store's inbox now (at each lease renewal). */
  poll(): void {
    this.watch?.poll();
  }

  /**
   * Runs `apply` (an action that runs) as a live run of the session that a cancel can stop:
   * a cancel aborts `cancel`, the run's own controller (its action's `cancelSignal`, which the
   * runtime's `whileBusy` aborts too: one controller a run, no signals linked). When the
   * cancel watch first reads the inbox (a request may be there from before), the run waits for
   * that read; cancelled meanwhile (a cancel recorded for the run it continues), it does not
   * start: `cancelStored` applies `cancelRun()` (the stored paused or crashed run ends
   * `cancelled`, audited, before any step) and the caller gets `RunCancelledError`. Without
   * `cancelStored` (the action cancels the run itself), or for a `newMessage` (its run starts
   * with the signal aborted and ends `cancelled` at once, the message in the history), it is
   * applied as given.
   */
  run<R>(
    key: SessionKey,
    cancel: AbortController,
    apply: () => Promise<R>,
    cancelStored: ((action: SessionAction) => Promise<unknown>) | undefined,
    newMessage = false,
  ): Promise<R> {
    // The inbox read resolves later (a store round trip), so the run is known to a cancel
    // before any request the read finds is applied.
    const reading = this.watch?.started();
    const continues = cancelStored !== undefined && !newMessage;
    const done = reading
      ? reading.then(() =>
          cancel.signal.aborted && continues
            ? cancelledFirst(key, cancel.signal, cancelStored)
            : apply(),
        )
      : apply();
    const remove = this.cancels.add(key, {
      cancel: (request) => cancel.abort(cancelReason(request)),
      done,
    });
    // No connection it opened keeps the process alive after the call: the cancel watch's
    // subscription stays between runs, idle (PostgreSQL: the store's LISTEN connection lingers
    // with its socket and timer unref'd, so runs one after another reuse one backend and read
    // the inbox only if it may hold something unread); a store whose watch cannot idle has it
    // closed before this settles. `then`, not `finally` (which costs two promises more a run).
    const ended = (): Promise<void> | undefined => {
      remove();
      return this.watch?.ended();
    };
    return done.then(
      (value) => {
        const closing = ended();
        return closing ? closing.then(() => value) : value;
      },
      (error: unknown) => {
        const closing = ended();
        if (!closing) throw error;
        return closing.then(() => {
          throw error;
        });
      },
    );
  }

  /**
   * Cancels the session's run wherever it executes: here (resolves when it is over), in
   * another process holding its live lease on a store with a decision inbox (resolves once
   * the request is recorded; that process applies it), or else the stored paused or crashed
   * run, as `execute` applies `cancelRun()`.
   */
  async cancel(
    key: SessionKey,
    by: string | undefined,
    execute: (key: SessionKey, action: SessionAction) => Promise<unknown>,
  ): Promise<void> {
    const record = await this.load(key); // SessionNotFoundError, nothing written
    const here = this.cancels.cancel(key, { by, delivery: 'process' });
    if (here) return here;
    if (await this.askOwner(key, record, by)) return;
    await execute(key, cancelRun(by));
  }

  /**
   * Asks the process holding the session's live lease to cancel the run it stores now
   * (`whileBusy: 'interrupt'` from here): the id of the run asked about, or undefined when
   * there is none to ask about yet (no run stored, or no live owner: the caller tries again).
   */
  async cancelElsewhere(key: SessionKey, by: string | undefined): Promise<string | undefined> {
    return this.askOwner(key, await this.load(key), by);
  }

  /** Records a cancel request for the stored run if another process runs it (its id), else undefined. */
  private async askOwner(
    key: SessionKey,
    record: SessionRecord,
    by: string | undefined,
  ): Promise<string | undefined> {
    const { store } = this;
    const runId = storedRun<{ context?: { runId?: string } }>(record.snapshot)?.context?.runId;
    if (!this.watch || !runId || !hasDecisionInbox(store)) return undefined;
    if ((await runOwner(store, key, false)) !== 'live') return undefined;
    const at = this.clock.now();
    await store.submitDecisions({ key, runId, decisions: cancelDecisions(by), at });
    return runId;
  }
}

/**
 * A run cancelled before it started: the session's stored run (paused, or crashed) ends as
 * `cancelRun()` ends it (a session without one has nothing to end); the action is not applied.
 */
async function cancelledFirst(
  key: SessionKey,
  signal: AbortSignal,
  cancelStored: (action: SessionAction) => Promise<unknown>,
): Promise<never> {
  try {
    await cancelStored(cancelRun(cancelRequestOf(signal.reason)?.by));
  } catch (error) {
    if (!(error instanceof InvalidSessionTransitionError)) throw error;
  }
  throw new RunCancelledError({ sessionId: key.sessionId });
}
