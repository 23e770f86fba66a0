import type { AnyActorRef } from 'xstate';
import type { StartingStep, StepTiming } from '../actors/step-timing.js';
import type { Clock } from '../core/clock.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import type { RecoveryTurns } from './recovery-turns.js';
import { recoveryExhausted, type RecoveryLimit } from './recovery-limit.js';
import { notedTiming, startTiming } from './step-start-timing.js';

/**
 * How one loaded session's steps start, restored ones above all: their restarts are counted
 * against `maxRecoveries`, and a step a restore found in flight after more than one crash runs
 * (and its restart is noted) only in its session's recovery turn (`RecoveryTurns`), given back
 * when the last such step ends (or is stopped). A step replayed from the journal never takes it.
 */
export class RestoredSteps {
  private readonly waiting = new Map<string, { started: () => void; what: StartingStep }>();
  private readonly running = new Set<string>();
  private turns: RecoveryTurns | undefined;

  /**
   * A step's timing as it starts: as its run (`ref`) noted it in the transition that started it,
   * else (a step a restore restarts, `restoring`) one restart more, noted with `STEP_STARTED`.
   * Restarted more often than `maxRecoveries` allows, it throws `RecoveryExhaustedError` (see
   * `recoveryExhausted`). Restored after more than one crash (or after the one its limit
   * allows), its restart is noted only once it runs, in its session's recovery turn (`turn`).
   */
  stepStarted(
    ref: AnyActorRef | undefined,
    step: number,
    what: StartingStep,
    restoring: boolean,
    limit: RecoveryLimit & { clock: Pick<Clock, 'now'> },
  ): StepTiming {
    const run = (ref?.getSnapshot() as RunSnapshot | undefined)?.context;
    const noted = run?.stepStarts?.[step];
    if (noted && !restoring) return notedTiming(noted);
    const timing = startTiming(noted, restoring, limit.clock);
    const { startedAt: at, restarts, retries } = timing;
    const started = () => ref?.send({ type: 'STEP_STARTED', step, at, restarts, retries });
    if (restarts > limit.maxRecoveries) {
      started();
      const current = (ref?.getSnapshot() as RunSnapshot | undefined)?.context;
      const exhausted = recoveryExhausted(limit, current, step, timing, what);
      if (exhausted) throw exhausted;
    }
    if (run && restarts > 0 && restarts >= Math.min(2, limit.maxRecoveries)) {
      this.waiting.set(stepKey(run.runId, step), { started, what });
    } else started();
    return timing;
  }

  /**
   * See `JournaledStepDeps.recoveryTurn`; `queued` is called with the step if it has to wait.
   */
  turn(
    runId: string,
    step: number,
    signal: AbortSignal,
    turns: RecoveryTurns,
    queued: (what: StartingStep & { step: number }) => void,
  ): Promise<void> | undefined {
    const key = stepKey(runId, step);
    const restored = this.waiting.get(key);
    if (!restored) return undefined;
    this.waiting.delete(key);
    this.running.add(key);
    this.turns = turns;
    // A step stopped (its run cancelled) gives its turn back even if its work never ends.
    signal.addEventListener('abort', () => this.ended(runId, step), { once: true });
    return turns
      .take(this, signal, () => queued({ ...restored.what, step }))
      .then(restored.started);
  }

  /** See `JournaledStepDeps.stepEnded`. */
  ended(runId: string, step: number): void {
    if (this.waiting.size === 0 && this.running.size === 0) return;
    const key = stepKey(runId, step);
    this.waiting.delete(key); // replayed: it finished before the crash
    if (this.running.delete(key) && this.running.size === 0) this.turns?.release(this);
  }
}

function stepKey(runId: string, step: number): string {
  return `${runId}/${step}`;
}
