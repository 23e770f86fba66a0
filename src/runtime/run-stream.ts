import type { StepProgress } from '../actors/step-deps.js';
import { AsyncQueue } from './async-queue.js';
import { interruptionOf } from './call-fingerprint.js';
import type { RunResult } from './run-result.js';
import type { Interruption } from './run-state.js';
import type { ActionObservers } from './session-action.js';
import type { RunSnapshot } from './session-host.js';
import { stateName } from './session-status.js';

/** Typed events of `agent.stream()`. */
export type RunStreamEvent<T = string> =
  | StepProgress
  | { type: 'state_entered'; runId: string; state: string }
  | { type: 'approval_requested'; runId: string; interruption: Interruption }
  | { type: 'run_finished'; result: RunResult<T> };

/** An async iterable of run events; `result` resolves with the final result when it ends. */
export interface RunStream<T = string> extends AsyncIterable<RunStreamEvent<T>> {
  readonly result: Promise<RunResult<T>>;
}

/** Wires a run's progress and snapshots into a stream, and its outcome into `result`. */
export function createRunStream<T>(
  start: (observers: ActionObservers) => Promise<RunResult<T>>,
): RunStream<T> {
  const queue = new AsyncQueue<RunStreamEvent<T>>();
  let lastState = '';
  const announced = new Set<string>();
  const onRunSnapshot = (snapshot: RunSnapshot): void => {
    const state = stateName(snapshot.value);
    const runId = snapshot.context.runId;
    if (state !== lastState) {
      lastState = state;
      queue.push({ type: 'state_entered', runId, state });
    }
    if (state !== 'awaitingApproval') return;
    for (const c of snapshot.context.calls) {
      if (!c.needsApproval || c.decision || announced.has(c.callId)) continue;
      announced.add(c.callId);
      queue.push({
        type: 'approval_requested',
        runId,
        interruption: interruptionOf(c, snapshot.context.agentName),
      });
    }
  };
  const result = start({ progress: (e) => queue.push(e), onRunSnapshot }).then(
    (r) => {
      queue.push({ type: 'run_finished', result: r });
      queue.end();
      return r;
    },
    (error: unknown) => {
      queue.fail(error);
      throw error;
    },
  );
  result.catch(() => undefined); // the stream's reader sees the error; avoid an unhandled rejection
  return { result, [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator]() };
}
