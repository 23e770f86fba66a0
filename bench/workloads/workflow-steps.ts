/**
 * The workflow bench (issue 42), part 1: a workflow of 1,000 durable steps (`step-loop-machine.ts`)
 * hosted by `workflows()` on LevelDB and on PostgreSQL, against the same machine in plain
 * in-memory XState (the floor: no durability at all) and against DBOS Transact running the same
 * 1,000 steps (`workflow-dbos-child.ts`) on the same throw-away PostgreSQL. Per-step time, first
 * 10% against last 10% (flat), and the ratios, all measured in the same run.
 */
import { createActor, toPromise } from 'xstate';
import { startPostgres } from '../../scripts/postgres-cluster.js';
import { runChild } from '../child.js';
import { stepLoopMachine, timedIncrement } from '../step-loop-machine.js';
import { stepFigures, type StepFigures } from '../step-figures.js';
import { rowsOf, type Row } from '../table.js';

/** The sizes of the part: steps of the measured workflow, and of the warm-up before it. */
export interface WorkflowStepsSizes {
  steps: number;
  warmUpSteps: number;
}

/** One run: the same workflow on every engine, one after the other. */
export interface WorkflowStepsRun {
  /** Plain in-memory XState: the machine with nothing stored. */
  xstate: StepFigures;
  /** DBOS Transact on the throw-away PostgreSQL. */
  dbos: StepFigures;
}

/** The machine in plain XState: a warm-up, then the measured run. */
export async function runPlainXState(sizes: WorkflowStepsSizes): Promise<StepFigures> {
  const once = async (steps: number): Promise<StepFigures> => {
    const starts: number[] = [];
    const machine = stepLoopMachine.provide({ actors: { increment: timedIncrement(starts) } });
    const started = performance.now();
    const { count } = await toPromise(createActor(machine, { input: { steps } }).start());
    const ended = performance.now();
    if (count !== steps) throw new Error(`plain XState counted ${count}, expected ${steps}`);
    return stepFigures(starts, started, ended);
  };
  await once(sizes.warmUpSteps);
  return once(sizes.steps);
}

/** DBOS Transact in a fresh process, its system database in `schema` of the cluster at `url`. */
export function runDbos(
  url: string,
  schema: string,
  sizes: WorkflowStepsSizes,
): Promise<StepFigures> {
  return runChild<StepFigures>('workflow-dbos-child.ts', [
    url,
    schema,
    String(sizes.steps),
    String(sizes.warmUpSteps),
  ]);
}

/** `config.runs` runs of every engine on one throw-away PostgreSQL. */
export async function runWorkflowSteps(
  sizes: WorkflowStepsSizes,
  runs: number,
  log: (message: string) => void,
): Promise<WorkflowStepsRun[]> {
  log('workflows: starting a throw-away PostgreSQL for the 1,000-step workflow');
  const cluster = await startPostgres();
  try {
    const out: WorkflowStepsRun[] = [];
    for (let run = 0; run < runs; run++) {
      log(`workflows: ${sizes.steps} steps in plain XState, run ${run + 1}/${runs}`);
      const xstate = await runPlainXState(sizes);
      log(`workflows: ${sizes.steps} steps in DBOS Transact, run ${run + 1}/${runs}`);
      const dbos = await runDbos(cluster.url, `dbos_bench_${run}`, sizes);
      out.push({ xstate, dbos });
    }
    return out;
  } finally {
    await cluster.destroy();
  }
}

/** The rows of part 1. */
export function workflowStepsRows(runs: WorkflowStepsRun[]): Row[] {
  const steps = runs[0]!.xstate.steps;
  const engine = (name: string, pick: (r: WorkflowStepsRun) => StepFigures): Row[] =>
    rowsOf(`Workflow of ${steps} steps: ${name}`, runs, [
      ['total time', 'ms', (r) => pick(r).totalMs],
      ['time/step (median)', 'ms', (r) => pick(r).medianStepMs],
      ['time/step, first 10%', 'ms', (r) => pick(r).firstStepMs],
      ['time/step, last 10%', 'ms', (r) => pick(r).lastStepMs],
      ['  last / first', 'x', (r) => pick(r).lastStepMs / pick(r).firstStepMs],
    ]);
  return [
    ...engine('plain in-memory XState (the floor)', (r) => r.xstate),
    ...engine('DBOS Transact, same PostgreSQL', (r) => r.dbos),
  ];
}
