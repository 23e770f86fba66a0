/**
 * The workflow bench (issue 42), part 1: a workflow of 1,000 durable steps (`step-loop-machine.ts`)
 * hosted by `workflows()` on LevelDB and on PostgreSQL, against the same machine in plain
 * in-memory XState (the floor: no durability at all) and against DBOS Transact running the same
 * 1,000 steps (`workflow-dbos-child.ts`) on the same throw-away PostgreSQL. Per-step time, first
 * 10% against last 10% (flat), and the ratios, all measured in the same run.
 */
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { createActor, toPromise } from 'xstate';
import { LevelSessionStore, workflows, type SessionStore } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { startPostgres } from '../../scripts/postgres-cluster.js';
import { tempDir } from '../fixtures.js';
import { runChild } from '../child.js';
import { stepLoopMachine, timedIncrement } from '../step-loop-machine.js';
import {
  stepFigures,
  type StepFigures,
  type StepStarts,
  type WriteCounters,
} from '../step-figures.js';
import { emptyTables, recordingPool, replayStatements } from '../postgres-fixtures.js';
import { median } from '../stats.js';
import { rowsOf, type Row, type TargetResult } from '../table.js';

/** The sizes of the part: steps of the measured workflow, and of the warm-up before it. */
export interface WorkflowStepsSizes {
  steps: number;
  warmUpSteps: number;
}

/** One run: the same workflow on every engine, one after the other. */
export interface WorkflowStepsRun {
  /** Hosted by `workflows()` on LevelDB (a temp folder). */
  level: StepFigures;
  /** Hosted by `workflows()` on PostgreSQL (the throw-away cluster). */
  postgres: StepFigures;
  /** Plain in-memory XState: the machine with nothing stored. */
  xstate: StepFigures;
  /** DBOS Transact on the throw-away PostgreSQL. */
  dbos: StepFigures;
}

/** The machine in plain XState: a warm-up, then the measured run. */
export async function runPlainXState(sizes: WorkflowStepsSizes): Promise<StepFigures> {
  const once = async (steps: number): Promise<StepFigures> => {
    const starts: StepStarts = { times: [], bytes: [] };
    const increment = timedIncrement(() => starts.times.push(performance.now()));
    const machine = stepLoopMachine.provide({ actors: { increment } });
    const started = performance.now();
    const { count } = await toPromise(createActor(machine, { input: { steps } }).start());
    const ended = performance.now();
    if (count !== steps) throw new Error(`plain XState counted ${count}, expected ${steps}`);
    return stepFigures(starts, started, ended);
  };
  await once(sizes.warmUpSteps);
  return once(sizes.steps);
}

/**
 * The machine hosted by `workflows()` on `store`: a warm-up instance, then the measured one.
 * Its end: the instance read back `completed` (its last save done). `counters` reads what the
 * store wrote so far.
 */
export async function runHosted(
  store: SessionStore,
  sizes: WorkflowStepsSizes,
  counters: () => WriteCounters = () => store.stats(),
): Promise<StepFigures> {
  let starts: StepStarts = { times: [], bytes: [] };
  let finished = (): void => undefined;
  const host = workflows(stepLoopMachine.provide({ actions: { finished: () => finished() } }), {
    name: 'step-loop',
    store,
    steps: {
      increment: timedIncrement(() => {
        starts.times.push(performance.now());
        starts.bytes.push(store.stats().bytesWritten);
      }),
    },
  });
  const once = async (id: string, steps: number): Promise<StepFigures> => {
    starts = { times: [], bytes: [] };
    const done = new Promise<void>((resolve) => (finished = resolve));
    const atStart = { ...counters() };
    const started = performance.now();
    await host.start(id, { input: { steps }, userId: 'bench' });
    await done;
    let info = await host.get(id, { userId: 'bench' });
    while (info.status === 'active') {
      await turn();
      info = await host.get(id, { userId: 'bench' });
    }
    const ended = performance.now();
    const { count } = info.context as { count: number };
    if (info.status !== 'completed' || count !== steps)
      throw new Error(`the hosted workflow ended ${info.status} at ${count}, expected ${steps}`);
    return stepFigures(starts, started, ended, { atStart, atEnd: counters() });
  };
  try {
    await once('warm-up', sizes.warmUpSteps);
    return await once('measured', sizes.steps);
  } finally {
    await host.close();
  }
}

/** The hosted machine on LevelDB in a temp folder. */
async function runHostedLevel(sizes: WorkflowStepsSizes): Promise<StepFigures> {
  const dir = await tempDir('agentstate-bench-workflow-');
  const store = await LevelSessionStore.open({ path: join(dir.path, 'db') });
  try {
    return await runHosted(store, sizes);
  } finally {
    await store.close();
    await dir.cleanup();
  }
}

/**
 * The hosted machine on PostgreSQL, in `schema` of the cluster at `url`, its statements counted;
 * then the measured instance's statements sent again alone, on emptied tables (the floor).
 */
async function runHostedPostgres(
  url: string,
  schema: string,
  sizes: WorkflowStepsSizes,
): Promise<StepFigures> {
  const { pool, statements } = recordingPool(url, 4);
  try {
    const store = await PostgresSessionStore.open({ pool, schema });
    /** The statements sent when the counters were read: the measured instance's are the last two. */
    const marks: number[] = [];
    let figures: StepFigures;
    try {
      figures = await runHosted(store, sizes, () => {
        marks.push(statements.length);
        return { ...store.stats(), statements: statements.length };
      });
    } finally {
      await store.close();
    }
    await emptyTables(url, schema);
    const floorMs = await replayStatements(url, statements.slice(...marks.slice(-2)));
    figures.writes!.floorStepMs = floorMs / figures.steps;
    return figures;
  } finally {
    if (!pool.ended) await pool.end();
  }
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
      log(`workflows: ${sizes.steps} steps hosted on LevelDB, run ${run + 1}/${runs}`);
      const level = await runHostedLevel(sizes);
      log(`workflows: ${sizes.steps} steps hosted on PostgreSQL, run ${run + 1}/${runs}`);
      const postgres = await runHostedPostgres(cluster.url, `workflow_bench_${run}`, sizes);
      log(`workflows: ${sizes.steps} steps in DBOS Transact, run ${run + 1}/${runs}`);
      const dbos = await runDbos(cluster.url, `dbos_bench_${run}`, sizes);
      out.push({ level, postgres, xstate, dbos });
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
      ['time/step, first 10% (mean)', 'ms', (r) => pick(r).firstStepMs],
      ['time/step, last 10% (mean)', 'ms', (r) => pick(r).lastStepMs],
      ['  last / first', 'x', (r) => pick(r).lastStepMs / pick(r).firstStepMs],
      [
        '  last / first, the medians of each 10%',
        'x',
        (r) => pick(r).lastStepMedianMs / pick(r).firstStepMedianMs,
      ],
    ]);
  const writes = (name: string, pick: (r: WorkflowStepsRun) => StepFigures): Row[] =>
    rowsOf(`Workflow of ${steps} steps: ${name}`, runs, [
      ['bytes written/step, first 10%', 'bytes', (r) => pick(r).writes!.firstBytes],
      ['bytes written/step, last 10%', 'bytes', (r) => pick(r).writes!.lastBytes],
      ['  last / first', 'x', (r) => pick(r).writes!.lastBytes / pick(r).writes!.firstBytes],
      ['batches/step', 'count', (r) => pick(r).writes!.batchesPerStep],
    ]);
  const level = 'hosted by workflows() on LevelDB';
  const postgres = 'hosted by workflows() on PostgreSQL';
  return [
    ...engine(level, (r) => r.level),
    ...writes(level, (r) => r.level),
    ...rowsOf(`Workflow of ${steps} steps: ${level}`, runs, [
      ['  / plain XState, time/step (medians, same run)', 'x', (r) => ratio(r.level, r.xstate)],
    ]),
    ...engine(postgres, (r) => r.postgres),
    ...writes(postgres, (r) => r.postgres),
    ...rowsOf(`Workflow of ${steps} steps: ${postgres}`, runs, [
      ['statements/step', 'count', (r) => r.postgres.writes!.statementsPerStep ?? Number.NaN],
      [
        'floor/step: the same statements alone',
        'ms',
        (r) => r.postgres.writes!.floorStepMs ?? Number.NaN,
      ],
      [
        '  time/step (total / steps) / floor',
        'x',
        (r) =>
          r.postgres.totalMs / r.postgres.steps / (r.postgres.writes!.floorStepMs ?? Number.NaN),
      ],
      ['  / plain XState, time/step (medians, same run)', 'x', (r) => ratio(r.postgres, r.xstate)],
      ['  / DBOS Transact, time/step (medians, same run)', 'x', (r) => ratio(r.postgres, r.dbos)],
    ]),
    ...engine('plain in-memory XState (the floor)', (r) => r.xstate),
    ...engine('DBOS Transact, same PostgreSQL', (r) => r.dbos),
  ];
}

/** One engine's median time per step over another's. */
const ratio = (a: StepFigures, b: StepFigures): number => a.medianStepMs / b.medianStepMs;

/** The part's targets (issue 42), on the medians over runs. Never throws: a miss is reported. */
export function workflowStepsTargets(runs: WorkflowStepsRun[]): TargetResult[] {
  const steps = runs[0]!.level.steps;
  const flat = (pick: (r: WorkflowStepsRun) => StepFigures): number =>
    median(runs.map((r) => pick(r).lastStepMs / pick(r).firstStepMs));
  const level = flat((r) => r.level);
  const postgres = flat((r) => r.postgres);
  const dbos = median(runs.map((r) => ratio(r.postgres, r.dbos)));
  return [
    {
      name: `Workflow of ${steps} steps, LevelDB: time/step, last 10% / first 10%`,
      value: level,
      limit: '<= 1.20x',
      unit: 'x',
      pass: level <= 1.2,
    },
    {
      name: `Workflow of ${steps} steps, PostgreSQL: time/step, last 10% / first 10%`,
      value: postgres,
      limit: '<= 1.20x',
      unit: 'x',
      pass: postgres <= 1.2,
    },
    {
      name: `Workflow of ${steps} steps: time/step on PostgreSQL / DBOS Transact's (medians)`,
      value: dbos,
      limit: '< 1.00x',
      unit: 'x',
      pass: dbos < 1,
    },
  ];
}
