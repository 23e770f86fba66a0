import type { StepProgress } from '../actors/step-progress.js';
import { isSubRun } from '../machines/agent-path.js';
import type { SessionKey } from '../persistence/session-store.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import { stateName } from '../runs/session-status.js';
import type { RuntimeObservers } from './action-observers.js';
import type { SessionEventHub } from './session-events.js';

/**
 * An action's observers that also report its streamed run's text deltas on the hub (`RunTextDelta`),
 * with the journal step of the model call that streams them and where each starts in its
 * text, for `agent.attach`. The run's snapshots tell which step calls the model; the caller's
 * own observers see everything as before.
 */
export function withTextDeltaFeed(
  hub: SessionEventHub,
  key: SessionKey,
  observe: RuntimeObservers | undefined,
): RuntimeObservers {
  // Only a run that streams has deltas to report: one without a progress observer calls its
  // model without streaming (`generate`), and an attacher reads its text whole once journaled.
  if (!observe?.progress) return observe ?? {};
  const calls = new Map<string, { step: number; offset: number }>();
  return {
    ...observe,
    progress: (event: StepProgress) => {
      observe?.progress?.(event);
      if (event.type !== 'text_delta' || event.agentPath !== undefined) return;
      const call = calls.get(event.runId);
      if (!call) return;
      const from = call.offset;
      call.offset += event.delta.length;
      if (!hub.has('RunTextDelta')) return;
      const { runId, delta } = event;
      hub.emit('RunTextDelta', { key, runId, step: call.step, from, delta });
    },
    onRunSnapshot: (snapshot: RunSnapshot) => {
      observe?.onRunSnapshot?.(snapshot);
      const { runId, step, agentPath } = snapshot.context;
      if (isSubRun(agentPath) || stateName(snapshot.value) !== 'modelCall') return;
      if (calls.get(runId)?.step !== step) calls.set(runId, { step, offset: 0 });
    },
  };
}
