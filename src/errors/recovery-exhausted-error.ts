import { AgentStateError, type ErrorScope, type SerializedError } from './agentstate-error.js';

/**
 * The step a run was in when a crash left it, as `RecoveryExhaustedError` names it: its kind,
 * its name (the tool's, the agent's for a model call, the guardrails' or the checked tools'),
 * the tool call id of a tool call, and its journal step. Plain JSON: it is stored with the
 * run's error.
 */
export type StepRef = NonNullable<SerializedError['failedStep']>;

/** The facts of a `RecoveryExhaustedError` that survive serialisation. */
export type RecoveryExhaustedFacts = Required<
  Pick<SerializedError, 'failedStep' | 'maxRecoveries'>
>;

/**
 * A run was restored after a crash more often than `maxRecoveries` allows while one step was
 * in flight, the step never finishing: the run ends `failed` with this error instead of
 * running the step again (and crashing the next process too). `failedStep` names the step;
 * `restores` is how many restores found it in flight (`maxRecoveries + 1`).
 */
export class RecoveryExhaustedError extends AgentStateError {
  readonly failedStep: StepRef;
  readonly maxRecoveries: number;
  constructor(failedStep: StepRef, maxRecoveries: number, scope: ErrorScope = {}) {
    const call = failedStep.callId === undefined ? '' : ` (call ${failedStep.callId})`;
    const crashes = maxRecoveries === 0 ? 'a crash' : `${maxRecoveries + 1} crashes in a row`;
    super(
      'RECOVERY_EXHAUSTED',
      `The ${failedStep.kind} step "${failedStep.name}"${call} at step ${failedStep.step} was ` +
        `in flight at ${crashes} (maxRecoveries: ${maxRecoveries}); ` +
        'the run is stopped instead of running it again',
      scope,
    );
    this.failedStep = failedStep;
    this.maxRecoveries = maxRecoveries;
  }

  /** How many restores found the step in flight. */
  get restores(): number {
    return this.maxRecoveries + 1;
  }

  override facts(): RecoveryExhaustedFacts {
    return { failedStep: this.failedStep, maxRecoveries: this.maxRecoveries };
  }
}

/**
 * Called once a run is stopped by `maxRecoveries` (`AgentOptions.onRecoveryExhausted`), in the
 * process that stops it, e.g. to page someone or quarantine the input. Errors it throws (or
 * rejects with) are ignored.
 */
export type RecoveryExhaustedHook = (
  error: RecoveryExhaustedError,
  where: { sessionId: string; userId: string | undefined; runId: string },
) => void | Promise<void>;
