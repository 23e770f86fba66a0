import { serializeError, type SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { GuardrailCheckInput, GuardrailCheckOutput } from './guardrail-types.js';
import type { RunMachineContext } from './run-types.js';
import type { ModelStepOutput } from './step-actor-io.js';
import { isSubRun } from './agent-path.js';
import { activeAgentOf } from './turn-steps.js';

/**
 * Pure helpers of the run machine for its guardrail steps: input guardrails before the first
 * model call, output guardrails on the final answer. Each step is journaled like a model or
 * tool step, so a restored run never evaluates a guardrail again.
 */

/** The run has input guardrails that have not run yet (they run before the first model call). */
export const needsInputGuardrails = (
  context: Pick<RunMachineContext, 'inputGuardrails' | 'turn' | 'guardrails'>,
): boolean =>
  context.inputGuardrails === true &&
  context.turn === 0 &&
  context.guardrails?.some((g) => g.kind === 'input') !== true;

/** The guardrail step's input: what to check, and for which agent. */
export function guardrailCheckInput(
  context: RunMachineContext,
  kind: GuardrailResult['kind'],
): GuardrailCheckInput {
  const sub = isSubRun(context.agentPath);
  return {
    runId: context.runId,
    sessionId: context.sessionId,
    step: context.step,
    kind,
    ...(sub ? { path: context.agentPath, input: context.input } : {}),
    ...activeAgentOf(context),
    ...(kind === 'input'
      ? sub
        ? {}
        : { historyStart: context.historyStart, inputCount: context.inputCount }
      : { output: { text: context.output, structured: context.structured } }),
  };
}

/** The run after a guardrail step: its results recorded, the next journal step, a tripwire. */
export function afterGuardrails(
  context: RunMachineContext,
  out: GuardrailCheckOutput,
): Partial<RunMachineContext> {
  return {
    step: context.step + 1,
    guardrails: [...(context.guardrails ?? []), ...out.results],
    ...(context.checkOutput === undefined ? {} : { checkOutput: undefined }),
    ...(out.tripwire ? { error: out.tripwire } : {}),
  };
}

/** Why a guardrail step failed (a `check` that threw), as stored. */
export const guardrailError = (event: unknown): SerializedError =>
  serializeError((event as { error: unknown }).error, 'GUARDRAIL_FAILED');

/** The run machine's guards of its guardrail steps. */
export const guardrailGuards = {
  needsInputGuardrails: ({ context }: { context: RunMachineContext }) =>
    needsInputGuardrails(context),
  /** On the model step's `onDone`: its answer is final and waits for output guardrails. */
  needsOutputGuardrails: ({ event }: { event: unknown }) =>
    (event as { output: ModelStepOutput }).output.outputGuardrails === true,
  guardrailTripped: ({ event }: { event: unknown }) =>
    (event as { output: GuardrailCheckOutput }).output.tripwire !== undefined,
};

/**
 * A guardrail step's state: its journaled check, then `next` (its results taken in by `record`),
 * or `failed` on a tripwire. The transition that goes to it notes the check's start.
 */
const guardrailState = <N extends string, A extends string>(
  kind: GuardrailResult['kind'],
  next: N,
  record: A,
) => ({
  invoke: {
    src: 'guardrailCheck' as const,
    input: ({ context }: { context: RunMachineContext }) => guardrailCheckInput(context, kind),
    onDone: [
      {
        guard: 'guardrailTripped' as const,
        target: 'failed',
        actions: 'recordGuardrails' as const,
      },
      { target: next, actions: record },
    ],
    onError: { target: 'failed', actions: 'guardrailFailed' as const },
  },
});

/**
 * The run machine's guardrail states: input guardrails once before the first model call,
 * output guardrails on the final answer before the run completes.
 */
export const guardrailStates = {
  inputGuardrails: guardrailState('input', 'modelCall', 'recordInputGuardrails'),
  // The run completes in the same transition (one assign: its results and its outcome).
  outputGuardrails: guardrailState('output', 'completed', 'completeAfterGuardrails'),
};
