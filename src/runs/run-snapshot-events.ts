import { isSubRun } from '../machines/agent-path.js';
import { interruptionOf } from './call-fingerprint.js';
import type { Interruption } from './run-state.js';
import type { RunSnapshot } from './live-snapshots.js';
import { stateName } from './session-status.js';

/** The stream events read off a run's snapshots: the states it enters, the calls it waits for. */
export type RunSnapshotEvent =
  | { type: 'state_entered'; runId: string; state: string; agentPath?: string[] | undefined }
  | {
      type: 'approval_requested';
      runId: string;
      interruption: Interruption;
      agentPath?: string[] | undefined;
    };

/**
 * An `onRunSnapshot` observer that turns the snapshots of one action's runs (its own and its
 * sub-agents') into `state_entered` when a run enters a state, and `approval_requested` once
 * per call that starts waiting for a decision.
 */
export function runSnapshotEvents(
  push: (event: RunSnapshotEvent) => void,
): (snapshot: RunSnapshot) => void {
  const lastState = new Map<string, string>();
  const announced = new Set<string>();
  return (snapshot) => {
    const state = stateName(snapshot.value);
    const { runId, agentPath } = snapshot.context;
    // A sub-agent run's events carry its agent path.
    const tag = isSubRun(agentPath) ? { agentPath } : {};
    if (state !== lastState.get(runId)) {
      lastState.set(runId, state);
      push({ type: 'state_entered', runId, state, ...tag });
    }
    if (state !== 'awaitingApproval') return;
    for (const c of snapshot.context.calls) {
      const id = `${runId}:${c.callId}`;
      if (!c.needsApproval || c.decision || announced.has(id)) continue;
      announced.add(id);
      push({
        type: 'approval_requested',
        runId,
        interruption: interruptionOf(c, snapshot.context),
        ...tag,
      });
    }
  };
}
