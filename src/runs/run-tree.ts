import type { AnyActorRef } from 'xstate';
import type { CallState, RunMachineContext } from '../machines/run-types.js';
import { isSubRunActor } from '../machines/sub-runs.js';
import { stateName } from './session-status.js';

type StateValue = Parameters<typeof stateName>[0];

/**
 * A run as seen live (an actor snapshot, whose children are actor refs) or stored (a
 * persisted snapshot, whose children are `{ src, snapshot }`). A run's sub-agent runs are its
 * children `agent-<step>`, runs again: together they form the run tree.
 */
export interface RunNode {
  status?: string | undefined;
  value?: StateValue | undefined;
  context?: RunMachineContext | undefined;
  children?: Record<string, unknown> | undefined;
}

/** The sub-agent runs directly under `run` (live or stored). */
export function subRunsOf(run: RunNode): RunNode[] {
  const out: RunNode[] = [];
  for (const [id, child] of Object.entries(run.children ?? {})) {
    if (!isSubRunActor(id) || !child) continue;
    const live = (child as Partial<AnyActorRef>).getSnapshot;
    out.push(
      typeof live === 'function'
        ? (live.call(child) as RunNode)
        : (child as { snapshot: RunNode }).snapshot,
    );
  }
  return out;
}

/** Every run of the tree under `root` (itself first), parents before their children. */
export function allRuns(root: RunNode | undefined): RunNode[] {
  if (!root) return [];
  return [root, ...subRunsOf(root).flatMap(allRuns)];
}

/** The runs from `root` down to the run `runId` (empty when it is not in the tree). */
export function runChain(root: RunNode | undefined, runId: string): RunNode[] {
  if (!root?.context) return [];
  if (root.context.runId === runId) return [root];
  for (const child of subRunsOf(root)) {
    const chain = runChain(child, runId);
    if (chain.length) return [root, ...chain];
  }
  return [];
}

/** The call of `parent` that started the sub-agent run `runId`. */
export function callOfSubRun(parent: RunNode, runId: string): CallState | undefined {
  return parent.context?.calls.find((c) => c.subRun?.runId === runId);
}

/** The state name of a run (`tools`, `awaitingApproval`, ...). */
export function runState(run: RunNode): string {
  return run.value === undefined ? '' : stateName(run.value);
}

/**
 * The runs of a tree that stand still: the run itself when it waits for an approval or is
 * interrupted, else the paused sub-agent runs its `tools` state waits for.
 */
export function pausedRuns(run: RunNode): RunNode[] {
  const state = runState(run);
  if (state === 'awaitingApproval' || state === 'interrupted') return [run];
  return state === 'tools' ? subRunsOf(run).flatMap(pausedRuns) : [];
}
