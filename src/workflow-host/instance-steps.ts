import type { Clock } from '../core/clock.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';
import { serializeError } from '../errors/agentstate-error.js';
import { StepInterruptedError } from '../errors/workflow-errors.js';
import type { WorkflowStepOutput } from '../machines/schemas/workflow-journal.js';
import { isPlainJson } from '../validation/plain-json.js';
import type { HostMeta, StepInFlight } from './instance-record.js';
import type { StepResolution } from './instance-command.js';
import {
  stepOnInterrupted,
  type StepDefinition,
  type StepReconcileOutcome,
} from './step-definition.js';

/** A step that finished, waiting for the macrostep that takes its outcome. */
export interface FinishedStep {
  actorId: string;
  step: number;
  entry: JournalEntry;
}

/** What the steps need of their instance. */
export interface StepsHost {
  readonly id: string;
  readonly key: SessionKey;
  readonly meta: HostMeta;
  readonly store: SessionStore;
  readonly clock: Clock;
  /** Aborted when the instance leaves memory. */
  readonly stopping: AbortSignal;
  /** Asks for a save of what changed. */
  markDirty(): void;
  /** Resolves once everything changed so far is saved. */
  saved(): Promise<void>;
}

type Outcome = { output: unknown } | { error: unknown };

/**
 * The durable steps of one instance. A step's start is saved before its function runs; its
 * outcome waits (`finished`) for the macrostep that takes it and is journaled in that
 * macrostep's save, so the journal and the machine's snapshot never disagree. A step that was
 * in flight at a crash is started anew by XState's restore: it is in doubt, and `reconcile`,
 * then its `onInterrupted`, decide whether it runs again.
 */
export class InstanceSteps {
  /** Steps in flight at the last save, started anew by the restore: (actor id -> marker). */
  private readonly restarting = new Map<string, StepInFlight>();
  /** Operators' answers for steps waiting in doubt (`ask`). */
  private readonly asking = new Map<string, (resolution: StepResolution) => void>();
  private readonly finished: FinishedStep[] = [];
  /** Step functions executing now. */
  running = 0;

  constructor(private readonly host: StepsHost) {}

  /** Marks the steps in flight in a restored snapshot as restarting. */
  restoring(steps: HostMeta['steps']): void {
    for (const [actorId, marker] of Object.entries(steps)) this.restarting.set(actorId, marker);
  }

  /**
   * After a restore started: a step in flight whose actor the restored machine does not have
   * (a migration left its state) is abandoned, not in doubt.
   */
  restored(children: Readonly<Record<string, unknown>>): void {
    for (const actorId of [...this.restarting.keys()]) {
      if (actorId in children) continue;
      this.restarting.delete(actorId);
      delete this.host.meta.steps[actorId];
    }
  }

  /** Whether `actorId` is a step about to start anew after a restore. */
  isRestarting(actorId: string): boolean {
    return this.restarting.has(actorId);
  }

  /** The outcomes finished since the last macrostep (taken by it). */
  takeFinished(): FinishedStep[] {
    return this.finished.splice(0);
  }

  /** Runs a durable step for the invoked actor `actorId` (see the class). */
  async run(
    name: string,
    step: StepDefinition,
    actorId: string,
    input: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { meta } = this.host;
    const restarted = this.restarting.get(actorId);
    this.restarting.delete(actorId);
    let marker: StepInFlight;
    if (restarted && restarted.name === name) {
      marker = { ...restarted, restarts: (restarted.restarts ?? 0) + 1 };
      delete marker.inDoubt;
      meta.steps[actorId] = marker;
      const replayed = await this.host.store.readJournal(this.host.key, meta.runId, marker.step);
      if (replayed?.kind === 'step') return this.replay(actorId, marker.step, replayed);
    } else {
      marker = { step: ++meta.seq, name, startedAt: this.host.clock.now() };
      meta.steps[actorId] = marker;
      this.host.markDirty();
      await this.host.saved();
    }
    const key = `${this.host.id}:${marker.step}`;
    const both = AbortSignal.any([signal, this.host.stopping]);
    const base = { input, key, signal: both };
    if (restarted) {
      const decided = await this.inDoubt(name, step, actorId, marker, base);
      if (decided) return this.finish(actorId, marker, name, decided);
    }
    this.running += 1;
    try {
      const output: unknown = await step.run({ ...base, restarts: marker.restarts ?? 0 });
      if (output !== undefined && !isPlainJson(output)) {
        throw new TypeError(
          `step "${name}" returned a value that is not plain JSON (its output is journaled)`,
        );
      }
      return this.finish(actorId, marker, name, { output });
    } catch (error) {
      if (both.aborted) throw error;
      return this.finish(actorId, marker, name, { error });
    } finally {
      this.running -= 1;
    }
  }

  /** An operator's answer for the step `actorId` waiting in doubt; false when none waits. */
  answer(actorId: string, resolution: StepResolution): boolean {
    const answer = this.asking.get(actorId);
    if (!answer) return false;
    this.asking.delete(actorId);
    answer(resolution);
    return true;
  }

  /** The steps waiting for an operator. */
  inDoubt_(): { actorId: string; name: string; step: number }[] {
    return Object.entries(this.host.meta.steps)
      .filter(([, marker]) => marker.inDoubt)
      .map(([actorId, marker]) => ({ actorId, name: marker.name, step: marker.step }));
  }

  /** What a step in doubt leads to: an outcome without running it, or `undefined` (run it). */
  private async inDoubt(
    name: string,
    step: StepDefinition,
    actorId: string,
    marker: StepInFlight,
    base: { input: unknown; key: string; signal: AbortSignal },
  ): Promise<Outcome | undefined> {
    if (step.reconcile) {
      let found: StepReconcileOutcome<unknown>;
      try {
        found = await step.reconcile(base);
      } catch {
        found = 'unknown'; // a failed lookup tells nothing
      }
      if (found === 'retry') return undefined;
      if (typeof found === 'object' && found !== null && 'output' in found) {
        return { output: found.output };
      }
    }
    const interrupted = { error: new StepInterruptedError(this.host.id, name, base.key) };
    switch (stepOnInterrupted(step)) {
      case 'retry':
        return undefined;
      case 'fail':
        return interrupted;
      case 'ask': {
        this.host.meta.steps[actorId] = { ...marker, inDoubt: true };
        this.host.markDirty();
        const resolution = await new Promise<StepResolution>((resolve) =>
          this.asking.set(actorId, resolve),
        );
        this.host.meta.steps[actorId] = marker;
        if (resolution.action === 'retry') return undefined;
        if (resolution.action === 'result') return { output: resolution.output };
        return interrupted;
      }
    }
  }

  /** Keeps a step's outcome for the macrostep that takes it; returns (or throws) it. */
  private finish(actorId: string, marker: StepInFlight, name: string, outcome: Outcome): unknown {
    const output: WorkflowStepOutput =
      'error' in outcome
        ? {
            name,
            actorId,
            outcome: 'error',
            error: serializeError(outcome.error, 'TOOL_STEP_FAILED'),
          }
        : {
            name,
            actorId,
            outcome: 'done',
            ...(outcome.output === undefined ? {} : { output: outcome.output }),
          };
    const entry: JournalEntry = {
      runId: this.host.meta.runId,
      step: marker.step,
      kind: 'step',
      output,
      at: this.host.clock.now(),
      startedAt: marker.startedAt,
      ...(marker.restarts ? { restarts: marker.restarts } : {}),
    };
    this.finished.push({ actorId, step: marker.step, entry });
    if ('error' in outcome) throw outcome.error;
    return outcome.output;
  }

  /** A step whose outcome the journal holds: it is not run again. */
  private replay(actorId: string, step: number, entry: JournalEntry): unknown {
    const output = entry.output as WorkflowStepOutput;
    if (this.host.meta.steps[actorId]?.step === step) delete this.host.meta.steps[actorId];
    if (output.outcome === 'error') {
      throw Object.assign(new Error(output.error?.message), output.error) as Error;
    }
    return output.output;
  }
}
