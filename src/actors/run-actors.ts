import { approvalCheck } from './approval-check.js';
import { durableTimer } from './durable-timer.js';
import { modelStep } from './model-step.js';
import type { StepDeps } from './step-deps.js';
import { toolCall } from './tool-call.js';

/** The run machine's named actors, implemented for one loaded session. */
export function runActors(deps: StepDeps) {
  return {
    modelStep: modelStep(deps),
    toolCall: toolCall(deps),
    approvalCheck: approvalCheck(deps),
    durableTimer: durableTimer(deps.clock),
  };
}
