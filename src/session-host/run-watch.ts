import type { AnyActorRef } from 'xstate';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import { hasSubRuns, observeRun, runRefs, stepsInFlight } from '../runs/run-observation.js';
import type { SessionObserver } from '../telemetry/session-observer.js';

/** What a session host's run watch reads and tells. */
export interface RunWatchHost {
  /** The session's spans, metrics and log lines for the current action, if any. */
  observer(): SessionObserver | undefined;
  /** The session's run actor, if it has one now. */
  runRef(): AnyActorRef | undefined;
  /** The session's run snapshot, if it has a run. */
  runSnapshot(): RunSnapshot | undefined;
  /** A run of the tree moved (or a new one joined it): reported to the action's observers. */
  onRunSnapshot(snapshot: RunSnapshot): void;
  /** A run of the tree moved: the committer and the waiters hear of it. */
  moved(): void;
  /** A run of the tree failed: the waiters wake. */
  failed(): void;
}

/**
 * A session host's watch over its run tree: it subscribes to every run actor (the session's
 * run and its sub-agent runs: a child's steps change only the child's snapshot, and each change
 * must reach the committer and the waiters) and starts each run's observation.
 */
export class RunWatch {
  private readonly watched = new WeakSet<AnyActorRef>();
  /** False while the session is restored; afterwards a new run child is reported at once. */
  announce = false;

  constructor(private readonly host: RunWatchHost) {}

  /** Subscribes to every run actor of the tree not watched yet. */
  watch(): void {
    const root = this.host.runRef();
    // The common case, at every snapshot: the run is watched and has no sub-agent runs.
    if (!root || (this.watched.has(root) && !hasSubRuns(root))) return;
    for (const { ref, parentRunId } of runRefs(root)) {
      if (this.watched.has(ref)) continue;
      this.watched.add(ref);
      this.observeStart(ref, parentRunId);
      const onRun = (snapshot: RunSnapshot): void => {
        const observer = this.host.observer();
        if (observer) observeRun(observer, snapshot);
        this.host.onRunSnapshot(snapshot);
        this.watch();
        this.host.moved();
      };
      ref.subscribe({
        next: (s: unknown) => onRun(s as RunSnapshot),
        error: () => this.host.failed(),
      });
      // A new run enters its first states (turnStart -> modelCall) synchronously, before this
      // subscription exists: report where it stands now, so observers see its first state.
      if (this.announce) this.host.onRunSnapshot(ref.getSnapshot() as RunSnapshot);
    }
  }

  /** A run joins the watched tree: new (its span starts) or restored with the session. */
  private observeStart(ref: AnyActorRef, parentRunId: string | undefined): void {
    const run = (ref.getSnapshot() as RunSnapshot).context;
    const observer = this.host.observer();
    if (!observer || !run) return;
    const restored = !this.announce;
    observer.startRun(run, {
      parentRunId,
      restored,
      restarted: restored && stepsInFlight(this.host.runSnapshot()),
    });
  }
}
