import type { AnyActorRef, InspectionEvent } from 'xstate';
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
import type { StepKind } from '../core/durability-policy.js';
import { runtimeProbeOf, type RuntimeProbe } from '../core/runtime-probe.js';
import { sessionStatusOf, stateName } from '../runs/session-status.js';
import { runInFlight } from '../runs/run-activity.js';
import { runChain } from '../runs/run-tree.js';
import type { RunContext } from '../core/run-context.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import { closeRuns, runRefs } from '../runs/run-observation.js';
import { RunWatch } from './run-watch.js';
import type { RunSnapshot, SessionActor, SessionSnapshot } from '../runs/live-snapshots.js';
import { commitBinding, type HostDeps } from './host-deps.js';
import { createSessionActor, runStepDeps, wireSteps, type StepHost } from './run-wiring.js';
import { restoredLog } from './restored-log.js';
import { subRunContext } from './sub-run-context.js';
import { answerCancelledCalls } from './cancelled-calls.js';
import { RestoredSteps } from './restored-steps.js';

/**
 * One session loaded into this process: its actor (session machine with the run machine as
 * child), its history log and its committer. Created (restored) for an action, persisted
 * before it is closed; closed at rest, it may be kept live for the session's next action (see
 * `SessionCache`), which `resume`s it with its own deps instead of restoring it.
 */
export class SessionHost implements StepHost {
  readonly actor: SessionActor;
  readonly log: SessionLog;
  readonly committer: SessionCommitter;
  /** The session's spans, metrics and log lines (absent when the runtime has none). */
  observer: SessionObserver | undefined;
  /** The run actors (the session's run and its sub-agent runs) this host listens to. */
  private readonly runs = new RunWatch({
    observer: () => this.observer,
    runRef: () => this.runRef(),
    runSnapshot: () => this.runSnapshot(),
    onRunSnapshot: (snapshot) => this.deps.onRunSnapshot?.(snapshot),
    moved: () => {
      this.committer.schedule();
      this.notify();
    },
    failed: () => this.notify(),
  });
  /** True while the constructor starts the restored actors (their steps in flight restart). */
  private restoring = false;
  /** The restored steps whose restart is noted once they run (`JournaledStepDeps.recoveryTurn`). */
  readonly restored = new RestoredSteps();
  private readonly waiters = new Set<() => void>();
  /** The caller's AbortSignal cancels the run (CANCEL), so it ends `cancelled`, not `failed`. */
  private readonly onAbort = (): void => this.cancelRun();
  /** What the current action gave the host (none while it is kept at rest). */
  private bound: HostDeps | undefined;
  /** The current action's inspection observer: the actor's, when it was created inspected. */
  private inspecting: ((event: InspectionEvent) => void) | undefined;
  /** Whether the actor was created with an inspection observer (only then can it have one). */
  private readonly inspected: boolean;

  constructor(
    readonly store: SessionStore,
    readonly key: SessionKey,
    record: SessionRecord,
    committedItems: Item[],
    deps: HostDeps,
  ) {
    this.inspecting = deps.inspect; // the actor's creation is inspected too
    this.inspected = deps.inspect !== undefined;
    this.log = restoredLog(store, key, record, committedItems, deps.journal);
    this.actor = createSessionActor({
      snapshot: record.snapshot as SessionSnapshot,
      input: { sessionId: key.sessionId, userId: key.userId },
      inspect: this.inspected ? (event) => this.inspecting?.(event) : undefined,
    });
    this.committer = new SessionCommitter(store, record, this.actor, this.log, deps.clock, () =>
      this.saveFailed(),
    );
    this.resume(deps); // the step deps, before the start: restored steps restart on start
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
    this.runs.watch();
    this.runs.announce = true; // a run restored with the session is not a new one
  }

  /**
   * Gives the host an action's deps: at its creation, or when a host kept at rest is taken
   * for its session's next action (the caller checked that the store still holds exactly the
   * record it saved, see `SessionCache`): the action's agent, observers, lease and durability
   * replace the last one's, as a restore would give them.
   */
  resume(deps: HostDeps): this {
    this.bound = deps;
    this.inspecting = deps.inspect;
    this.observer = deps.observability?.forSession(this.committer.record.version, (runId) =>
      this.contextFor(runId),
    );
    wireSteps(this.actor, runStepDeps(this, deps));
    this.committer.bind(commitBinding(deps, this));
    for (const s of deps.cancels) s.addEventListener('abort', this.onAbort, { once: true });
    return this;
  }

  /**
   * Whether an action with this inspection observer (or none) can resume the host: its actor
   * reports to one only if it was created with one (XState takes it at creation).
   */
  inspectableBy(inspect: ((event: InspectionEvent) => void) | undefined): boolean {
    return (inspect !== undefined) === this.inspected;
  }

  /** The current action's deps (a host at rest has none: nothing of it runs then). */
  private get deps(): HostDeps {
    if (!this.bound)
      throw new Error('agentstate: a session kept at rest was used without resume()');
    return this.bound;
  }

  context(): SessionMachineContext {
    return this.actor.getSnapshot().context;
  }

  /** The RunContext of a run's tools (a sub-agent run's: its parent's, overridden). */
  contextFor(runId: string): RunContext {
    return subRunContext(this.runSnapshot(), runId, (id) => this.deps.contextFor(id));
  }

  /** A step's timing as it starts (see `RestoredSteps.stepStarted`); past `maxRecoveries` throws. */
  stepStarted(runId: string, step: number, what: StartingStep): StepTiming {
    const root = this.runRef();
    const ref = root && runRefs(root).find((r) => runIdOf(r.ref) === runId)?.ref;
    const limit = { ...this.deps, key: this.key, observer: this.observer };
    const contextFor = (id: string) => this.contextFor(id);
    return this.restored.stepStarted(ref, step, what, this.restoring, { ...limit, contextFor });
  }

  /** See `JournaledStepDeps.durable`: the committer's barrier (skipped by a test's fault probe). */
  durable(kind: StepKind): Promise<void> {
    if (this.probe?.skipsDurable?.(kind)) return Promise.resolve();
    return this.committer.barrier(kind);
  }

  /** The test-only probe the store carries (`RuntimeProbe`), if any. */
  get probe(): RuntimeProbe | undefined {
    return runtimeProbeOf(this.store);
  }

  /** Where a session run's input items are in the history (for its input guardrails). */
  inputOf(runId: string): { historyStart: number; inputCount: number } | undefined {
    return runChain(this.runSnapshot(), runId).at(-1)?.context;
  }

  /** The run child's snapshot, if a run is in progress or paused. */
  runSnapshot(): RunSnapshot | undefined {
    return this.runRef()?.getSnapshot() as RunSnapshot | undefined;
  }

  /** The session's run actor, if a run is in progress or paused. */
  private runRef(): AnyActorRef | undefined {
    return this.actor.getSnapshot().children.run as AnyActorRef | undefined;
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
    if (this.deps.cancels.some((s) => s.aborted)) this.cancelRun();
    while (this.settling()) await new Promise<void>((resolve) => this.waiters.add(resolve));
    await this.committer.flush();
  }

  /** What `settle` waits for: a run in flight, no save failed, the actor running. */
  private settling(): boolean {
    const { status } = this.actor.getSnapshot();
    return status === 'active' && !this.committer.failure && this.runInFlight();
  }

  /**
   * Persists what is pending, then ends the action: with `keep`, a host at rest as stored (no
   * run child, so no step or timer can move it; nothing unsaved) stays live without the
   * action's deps (`true`); otherwise its actor is stopped (persist before stop).
   */
  async close(keep = false): Promise<boolean> {
    for (const s of this.deps.cancels) s.removeEventListener('abort', this.onAbort);
    let kept = false;
    try {
      await this.committer.flush();
      const { status, children } = this.actor.getSnapshot();
      const atRest = status === 'active' && !children.run && this.committer.atRest();
      kept = keep && atRest && this.log.rest();
    } finally {
      if (this.observer) closeRuns(this.observer, this.actor.getSnapshot().children.run);
      if (kept) {
        this.bound = this.inspecting = this.observer = undefined; // the action's, let go
        wireSteps(this.actor, undefined);
        this.committer.bind(undefined);
      } else this.actor.stop();
    }
    return kept;
  }

  /** Stops the actor of a host kept at rest (dropped from the cache). */
  stop(): void {
    this.actor.stop();
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
    this.committer.stopRetries(); // a save waiting for the store is not waited out
    answerCancelledCalls(run, this.log);
    this.actor.send(event);
  }

  /** Cancels a run in flight (the caller's signal); a paused or finished run is left alone. */
  private cancelRun(): void {
    if (this.runInFlight() && this.actor.getSnapshot().can({ type: 'CANCEL' })) this.cancel();
  }

  private changed(): void {
    this.runs.watch();
    this.committer.schedule();
    this.notify();
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
    if (this.waiters.size === 0 || this.settling()) return; // every run snapshot lands here
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }
}

const runIdOf = (ref: AnyActorRef): string | undefined =>
  (ref.getSnapshot() as RunSnapshot).context.runId;
