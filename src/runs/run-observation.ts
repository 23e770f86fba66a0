import type { AnyActorRef } from 'xstate';
import { isSubRunActor } from '../machines/sub-runs.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { RunEnding } from '../telemetry/run-attributes.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import { pausedRuns, runState, type RunNode } from './run-tree.js';

/** A run actor of a session's run tree and its parent run's id (none for the session's run). */
export interface RunRef {
  ref: AnyActorRef;
  parentRunId: string | undefined;
}

/** A run actor and its sub-agent run actors, parents first, each with its parent's run id. */
export function runRefs(ref: AnyActorRef, parentRunId?: string): RunRef[] {
  const refs: RunRef[] = [];
  collectRunRefs(ref, parentRunId, refs);
  return refs;
}

/** `runRefs` into one array, with a loop over the children (it runs at every snapshot). */
function collectRunRefs(ref: AnyActorRef, parentRunId: string | undefined, into: RunRef[]): void {
  into.push({ ref, parentRunId });
  const { children } = ref.getSnapshot() as { children?: Record<string, AnyActorRef> };
  if (!children) return;
  for (const id in children) {
    const child = children[id];
    if (child && isSubRunActor(id)) collectRunRefs(child, runIdOf(ref), into);
  }
}

/** Whether a run actor has sub-agent run actors now. */
export function hasSubRuns(ref: AnyActorRef): boolean {
  const { children } = ref.getSnapshot() as { children?: Record<string, AnyActorRef> };
  for (const id in children) if (children[id] && isSubRunActor(id)) return true;
  return false;
}

const runIdOf = (ref: AnyActorRef): string | undefined =>
  (ref.getSnapshot() as { context?: RunMachineContext }).context?.runId;

/** How a run's stay ends, from its snapshot: finished, or paused (waiting, interrupted). */
export function runEnding(run: RunNode): RunEnding {
  const ctx = run.context!;
  const state = runState(run);
  const status =
    run.status === 'done'
      ? (ctx.outcome ?? 'failed')
      : state === 'awaitingApproval' || state === 'interrupted'
        ? 'interrupted'
        : 'running';
  return {
    status,
    interruption: state === 'awaitingApproval' ? 'approval' : ctx.interruption,
    turn: ctx.turn,
    usage: ctx.usage,
    error: ctx.error,
    guardrails: ctx.guardrails,
  };
}

/**
 * Tells the observer about a run's new snapshot: a finished run's span ends; a call whose
 * approval passed its deadline is logged.
 */
export function observeRun(observer: SessionObserver, run: RunNode): void {
  const ctx = run.context;
  if (!ctx) return;
  if (run.status === 'done') {
    observer.endRun(ctx.runId, runEnding(run));
    return;
  }
  if (!observer.logging) return;
  for (const call of ctx.calls) {
    if (call.reason === 'timeout') observer.deadline(ctx.runId, call.callId, call.name);
  }
}

/** Ends the stay of every run still open when the session closes (paused or in flight). */
export function closeRuns(observer: SessionObserver, root: AnyActorRef | undefined): void {
  if (root) {
    for (const { ref } of runRefs(root)) {
      const run = ref.getSnapshot() as RunNode;
      if (run.status === 'active' && run.context)
        observer.endRun(run.context.runId, runEnding(run));
    }
  }
  observer.close();
}

/**
 * Whether a restored run tree had steps in flight (a crash or a lost process stopped it
 * mid-step: they start again), not one standing still for an approval or an interruption.
 */
export function stepsInFlight(root: RunNode | undefined): boolean {
  return root?.status === 'active' && pausedRuns(root).length === 0;
}
