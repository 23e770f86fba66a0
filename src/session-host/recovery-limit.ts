import type { StartingStep, StepTiming } from '../actors/step-timing.js';
import {
  RecoveryExhaustedError,
  type RecoveryExhaustedHook,
} from '../errors/recovery-exhausted-error.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { JournalEntry, SessionKey } from '../persistence/session-store.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import type { RunContext } from '../core/run-context.js';

/**
 * How many times a crash may leave one step in flight before the run is stopped (see
 * `AgentOptions.maxRecoveries`): a step that crashed its process three times in a row will
 * crash the fourth too, while a crash from outside (a deploy, an OOM kill of a neighbour, a
 * lost machine) rarely hits the same step three times.
 */
export const DEFAULT_MAX_RECOVERIES = 3;

/** What the check of a restored step reads. */
export interface RecoveryLimit {
  key: SessionKey;
  maxRecoveries: number;
  /** The stored runs' journals, read when the session was loaded. */
  journal: readonly JournalEntry[];
  onRecoveryExhausted: RecoveryExhaustedHook | undefined;
  observer: SessionObserver | undefined;
  contextFor(runId: string): RunContext;
}

/**
 * The one check of every restore (`recover()`, the approval scheduler, the PostgreSQL
 * workers, `agent.resume`: each loads the session into a `SessionHost`, whose restored steps
 * in flight start again through `SessionHost.stepStarted`). A step restarted `restarts` times
 * without finishing (a step that finishes journals its result, and the next step counts from
 * 0) past `maxRecoveries` is not run again: this returns the `RecoveryExhaustedError` its step
 * actor throws, so the run ends `failed`; the hook and the log line fire here, once per
 * stopped run (again only if the process dies before the failure is saved).
 */
export function recoveryExhausted(
  limit: RecoveryLimit,
  run: RunMachineContext | undefined,
  step: number,
  { restarts }: StepTiming,
  what: StartingStep,
): RecoveryExhaustedError | undefined {
  if (!run || restarts <= limit.maxRecoveries) return undefined;
  const { runId } = run;
  // Finished but not yet past in the snapshot (its result saved with a later change): replayed.
  if (limit.journal.some((e) => e.runId === runId && e.step === step)) return undefined;
  const failedStep = {
    kind: what.kind,
    name: what.name ?? run.activeAgent ?? run.agentName,
    ...(what.callId === undefined ? {} : { callId: what.callId }),
    step,
  };
  const error = new RecoveryExhaustedError(failedStep, limit.maxRecoveries, {
    sessionId: limit.key.sessionId,
    runId,
  });
  limit.observer?.recoveryExhausted(limit.contextFor(runId), {
    step: failedStep,
    restores: restarts,
    maxRecoveries: limit.maxRecoveries,
  });
  const where = { sessionId: limit.key.sessionId, userId: limit.key.userId, runId };
  try {
    // A hook's failure must not keep the run from stopping.
    void Promise.resolve(limit.onRecoveryExhausted?.(error, where)).catch(() => undefined);
  } catch {
    // ignored, as above
  }
  return error;
}
