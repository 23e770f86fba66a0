import type { PromiseActorLogic } from 'xstate';
import type { OnInterrupted } from '../tools/in-doubt.js';

/** What a durable step's function is handed. */
export interface StepContext<TInput> {
  /** The input its `invoke` gave it. */
  input: TInput;
  /**
   * A stable idempotency key for this run of the step (`<instance id>:<journal step>`): the same
   * when the step runs again after a crash, so an effect it keys by it happens once.
   */
  key: string;
  /** Aborted when the instance leaves the invoking state, is cancelled or its host closes. */
  signal: AbortSignal;
  /** 0 the first time, then one more each time it ran again after its process stopped. */
  restarts: number;
}

/** What a step's `reconcile` found out about a run of it that was in flight at a crash. */
export type StepReconcileOutcome<TOutput> =
  /** The effect happened: this is the step's output (it is not run again). */
  | { output: TOutput }
  /** The effect did not happen: run it again (same key). */
  | 'retry'
  /** Cannot tell: `onInterrupted` decides. */
  | 'unknown';

/** A durable step in full: its function and its in-doubt policy, as a tool's. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the machine types the input
export interface StepDefinition<TInput = any, TOutput = unknown> {
  run(context: StepContext<TInput>): Promise<TOutput> | TOutput;
  /**
   * Running it twice with the same `key` has the effect of running it once: makes `'retry'` the
   * `onInterrupted` default.
   * @default false
   */
  idempotent?: boolean | undefined;
  /**
   * What a restored instance does with a run of this step that was in flight when its process
   * stopped, when `reconcile` is absent or answers `'unknown'`: `'retry'` runs it again with the
   * same key, `'fail'` gives the machine the step's error (`StepInterruptedError`), `'ask'`
   * waits until an operator resolves it (`resolveInDoubt`). Default: `'retry'` for an
   * `idempotent` step, `'fail'` otherwise.
   */
  onInterrupted?: OnInterrupted | undefined;
  /** Looks up the effect of a run in doubt (by its key) before `onInterrupted` applies. */
  reconcile?:
    | ((
        context: Omit<StepContext<TInput>, 'restarts'>,
      ) => StepReconcileOutcome<TOutput> | Promise<StepReconcileOutcome<TOutput>>)
    | undefined;
}

/** A step as given to `workflows()`: XState `fromPromise` logic, or a definition. */
export type StepSource = PromiseActorLogic<any, any> | StepDefinition; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The definition of a step given either way (`fromPromise` logic keeps its creator in `config`). */
export function stepDefinition(name: string, source: StepSource): StepDefinition {
  if (typeof (source as StepDefinition).run === 'function') return source as StepDefinition;
  const creator = (source as { config?: unknown }).config;
  if (typeof creator !== 'function') {
    throw new TypeError(
      `workflows(): step "${name}" must be fromPromise(...) logic or { run(context) { ... } }`,
    );
  }
  const create = creator as (args: {
    input: unknown;
    signal: AbortSignal;
    self: unknown;
    system: unknown;
    emit: unknown;
  }) => PromiseLike<unknown>;
  return {
    run: ({ input, signal }) =>
      create({ input, signal, self: undefined, system: undefined, emit: () => undefined }),
  };
}

/** The policy for a run in doubt when `reconcile` cannot tell. */
export function stepOnInterrupted(step: StepDefinition): OnInterrupted {
  return step.onInterrupted ?? (step.idempotent === true ? 'retry' : 'fail');
}
