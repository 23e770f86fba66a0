import type { AnyActorRef } from 'xstate';
import type { SessionLog } from '../actors/session-log.js';
import type { StartingStep, StepTiming } from '../actors/step-timing.js';
import {
  InvalidSessionTransitionError,
  RestoreFailedError,
  SessionConflictError,
} from '../errors/session-errors.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { SessionEvent, SessionMachineContext } from '../machines/session-types.js';
import type { Item } from '../items/item.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { SessionCommitter } from './session-committer.js';
import { DurabilityPolicy, type StepKind } from '../core/durability-policy.js';
import { sessionStatusOf, stateName } from '../runs/session-status.js';
import { runInFlight } from '../runs/run-activity.js';
import { runChain } from '../runs/run-tree.js';
import type { RunContext } from '../core/run-context.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import { closeRuns, observeRun, runRefs, stepsInFlight } from '../runs/run-observation.js';
import type { RunSnapshot, SessionActor, SessionSnapshot } from '../runs/live-snapshots.js';
import type { HostDeps } from './host-deps.js';
import { createSessionActor, runStepDeps, type StepHost } from './run-wiring.js';
import { restoredLog } from './restored-log.js';
import { subRunContext } from './sub-run-context.js';
import { answerCancelledCalls } from './cancelled-calls.js';
import { recoveryExhausted } from './recovery-limit.js';

/**
 * One session loaded into this process: its actor (session machine with the run machine as
 * child), its history log and its committer. Created per action; persisted before stopped.
 */
export class SessionHost implements StepHost {
  readonly actor: SessionActor;
  readonly log: SessionLog;
  readonly committer: SessionCommitter;
  /** The session's spans, metrics and log lines (absent when the runtime has none). */
  readonly observer: SessionObserver | undefined;
  /** Run actors (the session's run and its sub-agent runs) this host listens to. */
  private readonly watched = new WeakSet<AnyActorRef>();
  /** False while the constructor restores the session; afterwards a new run child is reported at once. */
  private announceRuns = false;
  /** True while the constructor starts the restored actors (their steps in flight restart). */
  private restoring = false;
  private readonly waiters = new Set<() => void>();
  /** The caller's AbortSignal cancels the run (CANCEL), so it ends `cancelled`, not `failed`. */
  private readonly onAbort = (): void => this.cancelRun();

  constructor(
    readonly store: SessionStore,
    readonly key: SessionKey,
    record: SessionRecord,
    committedItems: Item[],
    private readonly deps: HostDeps,
  ) {
    this.log = restoredLog(store, key, record, committedItems, deps.journal);
    this.observer = deps.observability?.forSession(record.version, (runId) =>
      this.contextFor(runId),
    );
    // Created with its step deps attached (see run-wiring.ts): restored steps restart on start.
    this.actor = createSessionActor(
      {
        snapshot: record.snapshot as SessionSnapshot,
        input: { sessionId: key.sessionId, userId: key.userId },
        inspect: deps.inspect,
      },
      runStepDeps(this, deps),
    );
    this.committer = new SessionCommitter(
      store,
      record,
      this.actor,
      this.log,
      deps.clock,
      () => this.saveFailed(),
      (saved) => deps.onSaved?.(saved, this.log.committedItems()),
      deps.lease,
      deps.durability === undefined || deps.durability === 'step'
        ? undefined
        : new DurabilityPolicy(deps.durability, {
            runInFlight: () => this.runInFlight(),
            toolResultPending: () => this.log.pendingTool(),
          }),
    );
    this.actor.subscribe({ next: () => this.changed(), error: () => this.notify() });
    this.restoring = true;
    try {
      this.actor.start();
    } finally {
      this.restoring = false;
    }
    const status = this.actor.getSnapshot().status;
    if (status === 'error') {
      throw new RestoreFailedError(key.sessionId, String(this.actor.getSnapshot().error));
    }
    this.watchRun();
    this.announceRuns = true; // a run restored with the session is not a new one
    deps.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  context(): SessionMachineContext {
    return this.actor.getSnapshot().context;
  }

  /** The RunContext of a run's tools (a sub-agent run's: its parent's, overridden). */
  contextFor(runId: string): RunContext {
    return subRunContext(this.runSnapshot(), runId, (id) => this.deps.contextFor(id));
  }

  /**
   * Notes on a run's context that one of its steps starts: now, or (a step in flight in the
   * restored snapshot, started again as the session is restored) at its first start, one
   * restart more. The note travels with the save that follows the step's start anyway; the
   * step's journal entry records it. A restored step restarted more often than
   * `maxRecoveries` allows throws `RecoveryExhaustedError` (recovery-limit.ts).
   */
  stepStarted(runId: string, step: number, what: StartingStep): StepTiming {
    const root = this.actor.getSnapshot().children.run as AnyActorRef | undefined;
    const ref = root && runRefs(root).find((r) => runIdOf(r.ref) === runId)?.ref;
    const noted = (ref?.getSnapshot() as RunSnapshot | undefined)?.context.stepStarts?.[step];
    const before = this.restoring ? noted : undefined;
    const timing = before
      ? { startedAt: before.at, restarts: before.restarts + 1 }
      : { startedAt: this.deps.clock.now(), restarts: 0 };
    ref?.send({ type: 'STEP_STARTED', step, at: timing.startedAt, restarts: timing.restarts });
    if (before && timing.restarts > this.deps.maxRecoveries) {
      const run = (ref?.getSnapshot() as RunSnapshot | undefined)?.context;
      const limit = { ...this.deps, key: this.key, observer: this.observer };
      const contextFor = (id: string) => this.contextFor(id);
      const exhausted = recoveryExhausted({ ...limit, contextFor }, run, step, timing, what);
      if (exhausted) throw exhausted;
    }
    return timing;
  }

  /** See `JournaledStepDeps.durable`: the committer's barrier. */
  durable(kind: StepKind): Promise<void> {
    return this.committer.barrier(kind);
  }

  /** Where a session run's input items are in the history (for its input guardrails). */
  inputOf(runId: string): { historyStart: number; inputCount: number } | undefined {
    return runChain(this.runSnapshot(), runId).at(-1)?.context;
  }

  /** The run child's snapshot, if a run is in progress or paused. */
  runSnapshot(): RunSnapshot | undefined {
    const ref = this.actor.getSnapshot().children.run as AnyActorRef | undefined;
    return ref?.getSnapshot() as RunSnapshot | undefined;
  }

  runContext(): RunMachineContext | undefined {
    return this.runSnapshot()?.context;
  }

  /** Name of the session's state, e.g. `active.idle`. */
  stateName(): string {
    return stateName(this.actor.getSnapshot().value);
  }

  status() {
    return sessionStatusOf(this.actor.getSnapshot().value);
  }

  /** Sends `event` if the current state allows it; otherwise throws and changes nothing. */
  send(event: SessionEvent, action: string = event.type): void {
    if (!this.actor.getSnapshot().can(event)) {
      throw new InvalidSessionTransitionError(this.key.sessionId, action, this.stateName());
    }
    this.actor.send(event);
  }

  /** True while a run is in flight (not paused, not finished). */
  runInFlight(): boolean {
    return runInFlight(this.runSnapshot(), this.deps.clock.now());
  }

  /** Resolves when the current run pauses or ends (or at once if none is in flight). */
  async settle(): Promise<void> {
    if (this.deps.signal?.aborted) this.cancelRun();
    while (
      this.runInFlight() &&
      !this.committer.failure &&
      this.actor.getSnapshot().status === 'active'
    ) {
      await new Promise<void>((resolve) => this.waiters.add(resolve));
    }
    await this.committer.flush();
  }

  /** Persists what is pending, then stops the actor (persist before stop). */
  async close(): Promise<void> {
    this.deps.signal?.removeEventListener('abort', this.onAbort);
    try {
      await this.committer.flush();
    } finally {
      if (this.observer) closeRuns(this.observer, this.actor.getSnapshot().children.run);
      this.actor.stop();
    }
  }

  /**
   * Cancels the session's run, paused or in flight (`InvalidSessionTransitionError` without
   * one). Each tool call of its turn still without a result gets one saying so, so the next
   * model call reads no call left unanswered (which chat APIs refuse).
   */
  cancel(action = 'cancelRun'): void {
    const run = this.runContext();
    const event = { type: 'CANCEL' } as const;
    if (!run || !this.actor.getSnapshot().can(event)) {
      throw new InvalidSessionTransitionError(this.key.sessionId, action, this.stateName());
    }
    answerCancelledCalls(run, this.log);
    this.actor.send(event);
  }

  /** Cancels a run in flight (the caller's signal); a paused or finished run is left alone. */
  private cancelRun(): void {
    if (this.runInFlight() && this.actor.getSnapshot().can({ type: 'CANCEL' })) this.cancel();
  }

  private changed(): void {
    this.watchRun();
    this.committer.schedule();
    this.notify();
  }

  /**
   * Subscribes to every run actor of the tree not watched yet: the session's run and its
   * sub-agent runs (a child's steps change only the child's snapshot, and each change must
   * reach the committer and the waiters).
   */
  private watchRun(): void {
    const root = this.actor.getSnapshot().children.run as AnyActorRef | undefined;
    if (!root) return;
    for (const { ref, parentRunId } of runRefs(root)) {
      if (this.watched.has(ref)) continue;
      this.watched.add(ref);
      this.observeStart(ref, parentRunId);
      const onRun = (snapshot: RunSnapshot): void => {
        if (this.observer) observeRun(this.observer, snapshot);
        this.deps.onRunSnapshot?.(snapshot);
        this.watchRun();
        this.committer.schedule();
        this.notify();
      };
      ref.subscribe({ next: (s: unknown) => onRun(s as RunSnapshot), error: () => this.notify() });
      // A new run enters its first states (turnStart -> modelCall) synchronously, before this
      // subscription exists: report where it stands now, so observers see its first state.
      if (this.announceRuns) this.deps.onRunSnapshot?.(ref.getSnapshot() as RunSnapshot);
    }
  }

  /** A run joins the watched tree: new (its span starts) or restored with the session. */
  private observeStart(ref: AnyActorRef, parentRunId: string | undefined): void {
    const run = (ref.getSnapshot() as RunSnapshot).context;
    if (!this.observer || !run) return;
    const restored = !this.announceRuns;
    this.observer.startRun(run, {
      parentRunId,
      restored,
      restarted: restored && stepsInFlight(this.runSnapshot()),
    });
  }

  /** A save failed: a lost version check is logged (with the run it was saving), then waiters wake. */
  private saveFailed(): void {
    const failure = this.committer.failure;
    if (this.observer?.logging && failure instanceof SessionConflictError) {
      const runId = this.runContext()?.runId ?? this.context().lastRun?.runId;
      this.observer.conflict(runId ? this.contextFor(runId) : this.deps.contextFor(''), {
        version: this.committer.record.version,
      });
    }
    this.notify();
  }

  private notify(): void {
    if (this.waiters.size === 0) return; // the common case: every run snapshot lands here
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }
}

const runIdOf = (ref: AnyActorRef): string | undefined =>
  (ref.getSnapshot() as RunSnapshot).context.runId;
