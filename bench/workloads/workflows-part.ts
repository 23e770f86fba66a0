import type { Row, TargetResult } from '../table.js';
import { runWorkflowSteps, workflowStepsRows, type WorkflowStepsRun } from './workflow-steps.js';

/** What the workflow bench measured, every run. */
export interface WorkflowsRaw {
  steps: WorkflowStepsRun[];
}

/**
 * `npm run bench -- --workflows` (and part of the full run): hosted app machines (issue 42).
 * Small with `--smoke`.
 */
export async function workflowsPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<{ kind: string; rows: Row[]; targets: TargetResult[]; raw: WorkflowsRaw }> {
  const sizes = config.smoke ? { steps: 50, warmUpSteps: 20 } : { steps: 1000, warmUpSteps: 200 };
  const steps = await runWorkflowSteps(sizes, config.runs, log);
  return {
    kind: 'workflows',
    rows: workflowStepsRows(steps),
    targets: [],
    raw: { steps },
  };
}
