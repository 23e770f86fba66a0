import type { SerializedError } from '../errors/agentstate-error.js';
import type { InterruptionReason, RunFinalStatus } from '../machines/run-types.js';
import { addUsage, zeroUsage, type RunUsage } from '../machines/run-usage.js';
import { addRunUsage, type RunSummary, type UsageTotals } from '../machines/session-types.js';
import { stepsExecuting } from './run-activity.js';
import type { RunOwner } from './run-owner.js';
import { pausedRuns, runState, subRunsOf, type RunNode } from './run-tree.js';
import { callsInDoubt, type InDoubtCall } from './calls-in-doubt.js';
import type { Interruption } from './run-state.js';
import { waitingInterruptions } from './waiting-interruptions.js';

/**
 * What a session's run is doing, as every surface shows it: `running` (steps executing in a
 * live process), `crashed` (steps were executing when their process stopped: a crash, a kill,
 * a lost lease; `agent.resume` or `runtime.recover` goes on from the last stored step),
 * `awaitingApproval` and `interrupted` (paused), or how the session's last run ended.
 */
export type RunStatus = 'running' | 'crashed' | 'awaitingApproval' | 'interrupted' | RunFinalStatus;

/** The session's current run (running, crashed or paused), else its last run. */
export interface RunStatusView {
  runId: string;
  status: RunStatus;
  /** Why a paused run stands still (`approval`, `budget`, `maxTurns`, `error`, `in_doubt`). */
  interruption?: InterruptionReason | undefined;
  /** Why the run failed, or why the model call that interrupted it failed. */
  error?: SerializedError | undefined;
  turns: number;
  /** Its usage so far: a run in progress, paused or crashed, counts what it used. */
  usage: RunUsage;
  /** Calls of its run tree waiting for a human's decision. */
  pendingApprovals: number;
  /**
   * Those calls, each with the run that waits on it (a sub-agent's: with its agent path), as a
   * RunResult lists them: what a decision by another process names (`callId`, `runId`).
   */
  interruptions: Interruption[];
  /** Its calls were decided (`recordDecisions`, the command line) and wait for a resume. */
  held: boolean;
  /** With interruption `in_doubt`: the calls cut off by a crash that wait for an operator. */
  callsInDoubt?: InDoubtCall[] | undefined;
  startedAt: number;
}

/** The status of the run `root` (the stored or live run child), else of `lastRun`. */
export function runStatusOf(
  root: RunNode | undefined,
  lastRun: RunSummary | undefined,
  owner: RunOwner,
): RunStatusView | undefined {
  const ctx = root?.status === 'active' ? root.context : undefined;
  if (root && ctx) {
    const paused = pausedRuns(root);
    const waiting = paused.filter((r) => runState(r) === 'awaitingApproval');
    const stopped = paused.find((r) => runState(r) === 'interrupted')?.context;
    const interruptions = waitingInterruptions(root);
    const executing = stepsExecuting(root);
    const status: RunStatus = executing
      ? owner === 'gone'
        ? 'crashed'
        : 'running'
      : waiting.length
        ? 'awaitingApproval'
        : 'interrupted';
    const interruption = executing
      ? undefined
      : waiting.length
        ? 'approval'
        : stopped?.interruption;
    return {
      runId: ctx.runId,
      status,
      interruption,
      error: stopped?.error ?? ctx.error,
      turns: ctx.turn,
      usage: runTreeUsage(root),
      pendingApprovals: interruptions.length,
      interruptions,
      held: waiting.some((r) => r.context?.held === true),
      ...(interruption === 'in_doubt' ? { callsInDoubt: callsInDoubt(root) } : {}),
      startedAt: ctx.startedAt,
    };
  }
  if (!lastRun) return undefined;
  return {
    runId: lastRun.runId,
    status: lastRun.status,
    error: lastRun.error,
    turns: lastRun.turn,
    usage: lastRun.usage,
    pendingApprovals: 0,
    interruptions: [],
    held: false,
    startedAt: lastRun.startedAt,
  };
}

/**
 * What a run used so far with what its sub-agent runs still in flight used (a sub-run's usage
 * joins its parent's when it ends): the one total every surface shows for a run.
 */
export function runTreeUsage(run: RunNode): RunUsage {
  const own = run.context?.usage;
  return subRunsOf(run).reduce(
    (sum, child) => addUsage(sum, runTreeUsage(child)),
    own ?? zeroUsage(),
  );
}

/** The session's totals with what its run in progress (`status` of it) used so far added. */
export function usageSoFar(totals: UsageTotals, run: RunStatusView | undefined): UsageTotals {
  return run && inProgress(run.status) ? addRunUsage(totals, run.turns, run.usage) : totals;
}

/** Whether a run of this status has not ended (its usage is not in the session's totals yet). */
export function inProgress(status: RunStatus): boolean {
  return (
    status === 'running' ||
    status === 'crashed' ||
    status === 'awaitingApproval' ||
    status === 'interrupted'
  );
}
