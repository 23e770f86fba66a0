import { askingOperator } from '../machines/calls-in-doubt.js';
import { isSubRun } from '../machines/agent-path.js';
import { parseArgs } from './call-fingerprint.js';
import { pausedRuns, runState, type RunNode } from './run-tree.js';

/**
 * A tool call cut off by a crash (started, not finished: its effect may or may not have
 * happened) whose tool asks an operator (`onInterrupted: 'ask'`): its run is paused with
 * interruption `in_doubt` until `agent.resolveInDoubt` (or the command line's `in-doubt`, or
 * the inspector) resolves it.
 */
export interface InDoubtCall {
  callId: string;
  toolName: string;
  /** Parsed JSON, or the raw text if it is not JSON. */
  arguments: unknown;
  /** The agent whose call it is. */
  agent: string;
  /** The run that waits (a sub-agent's run: with its agent path, top-level agent first). */
  runId: string;
  agentPath?: string[] | undefined;
  /** What the tool's `reconcile` answered before the run paused (`'error'`: it threw). */
  reconcile?: 'unknown' | 'error' | undefined;
}

/** The calls in doubt the run tree under `root` waits on for an operator. */
export function callsInDoubt(root: RunNode | undefined): InDoubtCall[] {
  if (root?.status !== 'active') return [];
  return pausedRuns(root).flatMap((run) => {
    const ctx = run.context;
    if (!ctx || runState(run) !== 'interrupted' || ctx.interruption !== 'in_doubt') return [];
    return ctx.calls.filter(askingOperator).map((call) => ({
      callId: call.callId,
      toolName: call.name,
      arguments: parseArgs(call.arguments),
      agent: ctx.activeAgent ?? ctx.agentName,
      runId: ctx.runId,
      ...(isSubRun(ctx.agentPath) ? { agentPath: ctx.agentPath } : {}),
      ...(call.inDoubt?.reconcile ? { reconcile: call.inDoubt.reconcile } : {}),
    }));
  });
}
