import { approvalCheck } from './approval-check.js';
import { durableTimer } from './durable-timer.js';
import { guardrailCheck } from './guardrail-check.js';
import { modelStep } from './model-step.js';
import { stepDepsOf, type StepDepsSource } from './step-deps.js';
import { toolCall } from './tool-call.js';

/**
 * The run machine's named actors, for one loaded session (`StepDeps`) or for every session,
 * each step finding its session's deps through its actor system.
 */
export function runActors(source: StepDepsSource) {
  return {
    modelStep: modelStep(source),
    toolCall: toolCall(source),
    approvalCheck: approvalCheck(source),
    durableTimer: durableTimer((system) => stepDepsOf(source, system).clock),
    guardrailCheck: guardrailCheck(source),
  };
}
