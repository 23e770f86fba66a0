import type { BusyRuns } from './busy-runs.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { RunInProgressError } from '../errors/session-errors.js';
import { answeringRunHere } from './answering-run.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { hasLeases } from '../persistence/store-supports.js';
import { RunLeases } from '../runs/run-lease.js';
import type { Clock } from '../core/clock.js';
import { cacheKey } from '../session-host/session-cache.js';
import type { SessionEventHub } from '../session-host/session-events.js';
import type { SessionAction } from '../actions/session-action.js';
import type { Execution } from './execution.js';
import type { LiveRuns } from './live-runs.js';
import type { MessageQueue } from './message-queue.js';

/** The parts of its runtime an `Admission` works with. */
export interface AdmissionParts {
  store: SessionStore;
  clock: Clock;
  hub: SessionEventHub;
  /** Sessions whose run is executing now (by `cacheKey`), in this runtime or its peers. */
  executing: Set<string>;
  /** How to wait for or cancel those runs, for the messages sent meanwhile. */
  busy: BusyRuns;
  /** The runs executing here, as a cancel reaches them. */
  live: LiveRuns;
  /** The messages queued while the session's run was busy (`whileBusy: 'queue' | 'steer'`). */
  queue: MessageQueue;
  /** The stage an admitted action goes on to. */
  execution: Execution;
  /** Whether the runtime takes session leases (on a store that keeps them). */
  leasing: boolean;
  leaseOwner: string;
  leaseTtlMs: number;
}

/**
 * The admission stage of an action that runs (a message, a resume): before anything is loaded
 * it decides whether, when and under which lease the action goes on to its execution. A
 * message id this runtime is answering now gets that run's answer (once per message id); with
 * this process executing the session's run, the action's busy policy (`whileBusy`) refuses it,
 * waits, cancels the run, or stores the message in the session's inbox (the queue); messages
 * queued earlier go first; with a store that keeps leases, the session's lease is taken first
 * (another owner's live lease is `RunInProgressError`), renewed while the run lives, fences
 * every save and is released when the action returns. An action that does not run goes
 * straight to its execution. One per runtime.
 */
export class Admission {
  /** The message id (`RunOptions.messageId`) of each run this runtime executes, by `cacheKey`. */
  private readonly answering = new Map<string, string>();
  /** The leases of this runtime's running actions, renewed together (once one is taken). */
  private leases: RunLeases | undefined;

  constructor(private readonly parts: AdmissionParts) {}

  async admit<R>(key: SessionKey, action: SessionAction<R>): Promise<R> {
    const { execution } = this.parts;
    if (action.runs !== true) return execution.apply(key, action, undefined);
    // One live run per session in this process: a second would restart the steps in flight.
    // A message sent meanwhile is refused, waits or cancels the run (its `whileBusy`).
    const session = cacheKey(key);
    // The same message again while its run executes here: not a new message, whatever its
    // `whileBusy`: its answer is that run's (once it ended, the stored record says so). A run
    // that stopped before storing it did not answer it: this one runs.
    const messageId = action.message?.options.messageId;
    if (messageId !== undefined && this.answering.get(session) === messageId) {
      return this.answeredHere(key, action, messageId);
    }
    return this.admitFree(key, action, session, messageId);
  }

  private async answeredHere<R>(
    key: SessionKey,
    action: SessionAction<R>,
    messageId: string,
  ): Promise<R> {
    const ended = this.parts.busy.ended(cacheKey(key));
    const parts = { store: this.parts.store, hub: this.parts.hub };
    const runId = await answeringRunHere(parts, key, messageId, ended);
    if (runId === undefined) return this.admit(key, action);
    throw new MessageAnsweredError(key.sessionId, messageId, runId, true);
  }

  private async admitFree<R>(
    key: SessionKey,
    action: SessionAction<R>,
    session: string,
    messageId: string | undefined,
  ): Promise<R> {
    const { executing, busy, queue, live } = this.parts;
    // Messages queued earlier go first (then this one runs, or meets their run busy).
    if (!executing.has(session)) await queue.ahead(key, action);
    while (executing.has(session)) {
      // 'queue' and 'steer' with a store that keeps a message inbox: stored, answered later.
      if (queue.queues(action)) return queue.queueHere(key, action);
      await busy.whenFree(session, key.sessionId, action);
    }
    executing.add(session);
    if (messageId !== undefined) this.answering.set(session, messageId);
    // The run's own cancel: `whileBusy: 'interrupt'` (`BusyRuns`) and a cancel from anywhere
    // (`LiveRuns`) abort it; the action reads it as its `cancelSignal`.
    const cancel = new AbortController();
    const cancellable = { ...action, observe: { ...action.observe, cancelSignal: cancel.signal } };
    // Returned, not awaited: nothing of this stays suspended while the action runs.
    const attempt = (): Promise<R> =>
      live.run(
        key,
        cancel,
        () => this.leased(key, cancellable, action),
        // A cancel (the scheduler's `cancelRun`) is applied as given, cancelled or not.
        action.event?.type === 'CANCEL'
          ? undefined
          : (cancelled) => this.leased(key, cancelled, cancelled),
        action.message !== undefined,
      );
    // 'interrupt' while another process runs the session: it waits for the session here, so
    // the messages sent here meanwhile wait behind it (and a later one cancels it, not skips it).
    const start =
      action.whileBusy === 'interrupt' ? () => this.interruptElsewhere(key, attempt) : attempt;
    const tracked = busy.track(session, cancel, start, () => {
      executing.delete(session);
      this.answering.delete(session);
    });
    const drains = queue.drainsAfter(key, action);
    if (drains) {
      // The messages queued meanwhile become the next runs (a drain running goes on by itself).
      const next = (): void => {
        if (drains() && !queue.isDraining(key)) void queue.drain(key);
      };
      tracked.then(next, next);
    }
    // A new message whose lease told of messages queued before it runs after them.
    const { byLease } = queue;
    const again = (): Promise<R> => this.admit(key, action);
    const handled = this.elsewhere(key, action, tracked);
    return byLease ? byLease.afterQueued(key, action, handled, again) : handled;
  }

  /** `running`, or, when another process runs the session, what `action`'s policy does then. */
  private elsewhere<R>(key: SessionKey, action: SessionAction<R>, running: Promise<R>): Promise<R> {
    const { queue } = this.parts;
    if (!queue.queues(action)) return running;
    return running.catch((error: unknown) => {
      if (!(error instanceof RunInProgressError && error.elsewhere)) throw error;
      // Another process runs the session: the message is stored for it (`MessageQueuedError`).
      return queue.queueElsewhere(key, action);
    });
  }

  /**
   * `whileBusy: 'interrupt'` while another process runs the session: asks it to cancel the run
   * it stores (`LiveRuns.cancelElsewhere`), and again each time the session is still taken (the
   * request could not name a run yet, or another run took the session meanwhile), trying
   * `attempt` as the lease is given up; `RunInProgressError` once one run has kept the session
   * a lease length after it was asked.
   */
  private async interruptElsewhere<R>(key: SessionKey, attempt: () => Promise<R>): Promise<R> {
    const { clock, leaseTtlMs, live } = this.parts;
    let asked: string | undefined;
    let until = clock.now() + leaseTtlMs;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof RunInProgressError && error.elsewhere)) throw error;
        const runId = await live.cancelElsewhere(key, undefined);
        if (runId !== undefined && runId !== asked) {
          asked = runId;
          until = clock.now() + leaseTtlMs;
        } else if (clock.now() >= until) throw error;
      }
      await clock.sleepUntil(clock.now() + Math.ceil(leaseTtlMs / 50));
    }
  }

  /**
   * Hands an action that runs to its execution, holding the session's lease when the store
   * keeps leases (`given`: the action as it was admitted, which the inbox checks under the lease).
   */
  private leased<R>(
    key: SessionKey,
    action: SessionAction<R>,
    given: SessionAction<R>,
  ): Promise<R> {
    const { store, execution, queue } = this.parts;
    if (!this.parts.leasing || !hasLeases(store)) return execution.apply(key, action, undefined);
    this.leases ??= new RunLeases(store, {
      owner: this.parts.leaseOwner,
      ttlMs: this.parts.leaseTtlMs,
      clock: this.parts.clock,
      onRenew: () => this.parts.live.poll(),
    });
    return this.leases.holding(
      key,
      action.name,
      (lease) => {
        const checked = queue.byLease?.underLease(key, given, lease);
        const apply = (): Promise<R> => execution.apply(key, action, lease);
        return checked ? checked.then(apply) : apply();
      },
      (told) => queue.byLease?.released(key, told),
    );
  }
}
