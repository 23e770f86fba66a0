import { stepEntry } from './step-timing.js';
import { zeroUsage } from '../machines/run-usage.js';
import type { ModelStepInput, ModelStepOutput } from '../machines/step-actor-io.js';
import type { ModelUsage } from '../models/model.js';
import { guardrailOutput } from './guardrail-check.js';
import type { GuardedCall } from './parallel-guardrails.js';
import type { JournaledStepDeps } from './journaled-step.js';

/**
 * The journaled model step of a first call whose parallel input guardrail tripped: no answer
 * joins the conversation, the guardrail results and the tripwire (which fails the run) are
 * recorded, and the usage of an answer that came anyway is counted.
 */
export function recordTripwire(
  deps: Pick<JournaledStepDeps, 'log' | 'clock'>,
  input: ModelStepInput,
  guarded: GuardedCall,
  costOf: (r: { model: string; usage: ModelUsage }) => number | undefined,
): ModelStepOutput {
  const { results, tripwire } = guardrailOutput(guarded.guardrails ?? []);
  const answered = guarded.response;
  const output: ModelStepOutput = {
    toolCalls: [],
    usage: answered ? { ...answered.usage, costUsd: costOf(answered) } : zeroUsage(),
    guardrails: results,
    outputError: tripwire,
  };
  deps.log.record(stepEntry(input, 'model', output, deps.clock.now()));
  return output;
}
