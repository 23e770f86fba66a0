import type { GuardrailResult } from '../errors/guardrail-errors.js';
import { evaluateGuardrails, guardrailInput } from '../guardrails/evaluate-guardrails.js';
import type { ModelResponse } from '../models/model.js';
import type { ModelStepInput } from '../machines/step-actor-io.js';
import { inputItems } from './guardrail-check.js';
import type { AgentDeps } from './agent-deps.js';
import type { ModelStepDeps } from './model-step.js';
import type { InputGuardrail } from '../guardrails/guardrail.js';

/** A first model call made alongside the input guardrails marked `runInParallel`. */
export interface GuardedCall {
  /** Absent when a guardrail tripped before the model answered (the call was aborted). */
  response?: ModelResponse | undefined;
  /** The parallel guardrails' results (absent: the agent has none, or it is not turn 0). */
  guardrails?: GuardrailResult[] | undefined;
}

/**
 * Calls the model; at a run's first model call, runs the agent's `runInParallel` input
 * guardrails at the same time. A tripwire aborts the call (or discards its answer); a
 * guardrail that throws fails the step like a failed call.
 */
export function callWithGuardrails(
  deps: ModelStepDeps,
  agent: AgentDeps,
  input: ModelStepInput,
  signal: AbortSignal,
  call: (signal: AbortSignal) => Promise<ModelResponse>,
): Promise<GuardedCall> {
  const parallel =
    input.turn === 0 ? (agent.inputGuardrails ?? []).filter((g) => g.runInParallel === true) : [];
  // No parallel guardrail: the call alone, with no async function suspended around it.
  return parallel.length === 0
    ? call(signal).then(unguarded)
    : callAlongside(deps, agent, input, signal, call, parallel);
}

const unguarded = (response: ModelResponse): GuardedCall => ({ response });

/** The call and the `runInParallel` input guardrails side by side (see above). */
async function callAlongside(
  deps: ModelStepDeps,
  agent: AgentDeps,
  input: ModelStepInput,
  signal: AbortSignal,
  call: (signal: AbortSignal) => Promise<ModelResponse>,
  parallel: readonly InputGuardrail[],
): Promise<GuardedCall> {
  const abort = new AbortController();
  const checks = evaluateGuardrails(
    'input',
    parallel,
    guardrailInput(inputItems(deps, { ...input, ...deps.inputOf(input.runId) })),
    deps.contextFor(input.runId),
    agent.redact,
    { runId: input.runId, sessionId: input.sessionId },
  ).then((results) => {
    if (results.some((r) => r.tripwire)) abort.abort();
    return results;
  });
  const answer = call(AbortSignal.any([signal, abort.signal]));
  const [checked, answered] = await Promise.allSettled([checks, answer]);
  if (checked.status === 'rejected') throw checked.reason;
  const guardrails = checked.value;
  if (guardrails.some((r) => r.tripwire)) {
    return { guardrails, ...(answered.status === 'fulfilled' ? { response: answered.value } : {}) };
  }
  if (answered.status === 'rejected') throw answered.reason;
  return { response: answered.value, guardrails };
}
