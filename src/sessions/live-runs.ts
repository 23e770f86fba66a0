import type { Clock } from '../core/clock.js';
import type { SessionAction } from '../actions/session-action.js';
import { cancelRun } from '../actions/cancel-run.js';
import { hasDecisionInbox } from '../persistence/decision-inbox.js';
import { hasLeases } from '../persistence/session-leases.js';
import {
  LiveRunCancels,
  cancelDecisions,
  cancelReason,
  runCancelsOf,
} from '../persistence/run-cancels.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { runOwner } from '../runs/run-owner.js';
import { storedRun } from '../runs/stored-run.js';
import { CancelWatch } from './cancel-watch.js';

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
    this.watch = shared ? new CancelWatch(store, this.cancels) : undefined;
  }

  /** Looks for cancel requests in the store's inbox now (at each lease renewal). */
  poll(): void {
    this.watch?.poll();
  }

  /** Applies an action that runs, as a live run of the session that a cancel can stop. */
  run<R>(
    key: SessionKey,
    action: SessionAction<R>,
    apply: (action: SessionAction<R>) => Promise<R>,
  ): Promise<R> {
    const controller = new AbortController();
    // The runtime's cancellation from outside this class (whileBusy) cancels it too: linked by
    // a listener, not `AbortSignal.any`, which costs and holds memory on every run.
    const outer = action.observe?.cancelSignal;
    const follow = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) follow();
    else outer?.addEventListener('abort', follow, { once: true });
    const cancelSignal = controller.signal;
    const done = apply({ ...action, observe: { ...action.observe, cancelSignal } });
    const remove = this.cancels.add(key, {
      cancel: (request) => controller.abort(cancelReason(request)),
      done,
    });
    this.watch?.started();
    // Settles once the watch of its last run is closed: no connection outlives the call.
    return done.finally(() => {
      outer?.removeEventListener('abort', follow);
      remove();
      return this.watch?.ended();
    });
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
    const { store } = this;
    const runId = storedRun<{ context?: { runId?: string } }>(record.snapshot)?.context?.runId;
    if (this.watch && runId && hasDecisionInbox(store)) {
      if ((await runOwner(store, key, false)) === 'live') {
        const at = this.clock.now();
        return store.submitDecisions({ key, runId, decisions: cancelDecisions(by), at });
      }
    }
    await execute(key, cancelRun(by));
  }
}
