import { fromPromise, type AnyActorRef } from 'xstate';
import type { RunContext } from '../core/run-context.js';
import type { Clock } from '../core/clock.js';
import type { StepKind } from '../core/durability-policy.js';
import type { AgentDeps } from './agent-deps.js';
import type { SessionLog } from './session-log.js';
import type { StartingStep, StepTiming } from './step-timing.js';

/** The actor system a step runs in (shared by every actor of one loaded session). */
export type AnyActorSystem = AnyActorRef['system'];

/**
 * How a step actor finds its dependencies when it starts: from the actor system it runs in,
 * that is from the loaded session it belongs to. One provided machine serves every session
 * (`machine.provide()` rebuilds the whole machine, too costly per action); see
 * session-host/run-wiring.ts, the one place that hands each step its deps.
 */
export type DepsOf<Deps> = (system: AnyActorSystem) => Deps;

/**
 * What every journaled step actor (model step, tool call, approval check, guardrail check)
 * uses; each one's own deps interface extends it with what only that step needs.
 */
export interface JournaledStepDeps {
  /** The session's history and journal: a step replays its journaled result, else records it. */
  log: SessionLog;
  clock: Clock;
  /**
   * Notes that a step starts (synchronously, as its actor starts, so the note joins the save
   * that follows anyway): when it first started and how many restores started it again. Throws
   * `RecoveryExhaustedError` when restores started it more often than `maxRecoveries` allows
   * (the step then fails, and its run with it, without running).
   */
  stepStarted(runId: string, step: number, what: StartingStep): StepTiming;
  /**
   * What a step of `kind` waits for before it does fresh work. With the default durability
   * (`'step'`): until every result recorded so far is saved, so the machine never moves past a
   * step whose result is not yet durable and at a crash only the step in flight can have run
   * unjournaled (invariant 1). With `'tools'` only a tool call waits for that (the others wait
   * for the saves already under way); with `'run'` no step does.
   */
  durable(kind: StepKind): Promise<void>;
  /**
   * What a step a restore found in flight waits for before its durability barrier: until its
   * session holds its runtime's recovery turn (restored steps of other sessions wait
   * meanwhile), then its restart is noted, so a crash is charged to the steps that ran, not
   * to those that waited (docs/operations/recovery.md). Undefined for any other step: no wait.
   */
  recoveryTurn(runId: string, step: number, signal: AbortSignal): Promise<void> | undefined;
  /** The step's actor ended (however): the recovery turn it held, if any, is given back. */
  stepEnded(runId: string, step: number): void;
  /**
   * The agent a step works for: `agent` when the run was handed off to it, else the last of a
   * sub-agent run's path, else this session's agent.
   */
  agentFor(path: readonly string[] | undefined, agent?: string): Promise<AgentDeps>;
  /** The RunContext a run's tools see (a sub-agent run's: its parent's, overridden). */
  contextFor(runId: string): RunContext;
}

/** What a step that calls out (a model, a tool) adds: the caller's cancellation. */
export interface CancellableStepDeps {
  /**
   * Aborted when the caller cancels; absent when the caller passed no signal (a step then uses
   * its actor's own signal alone, without the cost of `AbortSignal.any` per step).
   */
  signal: AbortSignal | undefined;
}

/** The caller's signal (if any) and the actor's own (aborted when XState stops it) as one. */
export function combinedSignal(deps: CancellableStepDeps, actorSignal: AbortSignal): AbortSignal {
  return deps.signal ? AbortSignal.any([deps.signal, actorSignal]) : actorSignal;
}

/**
 * A journaled step's actor logic (`fromPromise` of `work`), whose end is reported to the
 * session it runs in however it ends (see `JournaledStepDeps.stepEnded`).
 */
export function journaledStep<Output, Input extends { runId: string; step: number }>(
  work: (args: { input: Input; signal: AbortSignal; system: AnyActorSystem }) => Promise<Output>,
  depsOf: DepsOf<JournaledStepDeps>,
) {
  return fromPromise<Output, Input>(async (args) => {
    const deps = depsOf(args.system);
    try {
      return await work(args);
    } finally {
      deps.stepEnded(args.input.runId, args.input.step);
    }
  });
}
