import type { Row, TargetResult } from '../table.js';
import {
  runWorkflowSteps,
  workflowStepsRows,
  workflowStepsTargets,
  type WorkflowStepsRun,
} from './workflow-steps.js';
import {
  runWorkflowTimers,
  workflowTimersRows,
  workflowTimersTargets,
  type WorkflowTimersRun,
} from './workflow-timers.js';

/** What the workflow bench measured, every run. */
export interface WorkflowsRaw {
  steps: WorkflowStepsRun[];
  timers: WorkflowTimersRun[];
}

/**
 * `npm run bench -- --workflows` (and part of the full run): hosted app machines (issue 42), a
 * workflow of 1,000 durable steps and 10,000 instances waiting on a durable timer. Small with
 * `--smoke`.
 */
export async function workflowsPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<{ kind: string; rows: Row[]; targets: TargetResult[]; raw: WorkflowsRaw }> {
  const sizes = config.smoke ? { steps: 50, warmUpSteps: 20 } : { steps: 1000, warmUpSteps: 200 };
  const steps = await runWorkflowSteps(sizes, config.runs, log);
  const timers = await runWorkflowTimers(config.smoke ? 200 : 10_000, config.runs, log);
  return {
    kind: 'workflows',
    rows: [...workflowStepsRows(steps), ...workflowTimersRows(timers)],
    targets: [...workflowStepsTargets(steps), ...workflowTimersTargets(timers)],
    raw: { steps, timers },
  };
}
