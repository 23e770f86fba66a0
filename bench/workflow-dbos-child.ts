/**
 * The workflow bench's peer (issue 42): DBOS Transact running the same loop of steps as
 * `step-loop-machine.ts`, one `DBOS.runStep` per increment, its system database in a schema of
 * the bench's throw-away PostgreSQL. In a process of its own (DBOS is one configuration per
 * process). Usage: workflow-dbos-child.ts <url> <schema> <steps> <warm-up steps>. Runs a
 * warm-up workflow, then the measured one; prints one JSON line of `StepFigures`.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { stepFigures, type StepStarts } from './step-figures.js';

const [url, schema, stepsArg, warmUpArg] = process.argv.slice(2);
const steps = Number(stepsArg);
const warmUp = Number(warmUpArg);
if (!url || !schema || !Number.isInteger(steps) || !Number.isInteger(warmUp))
  throw new Error('usage: workflow-dbos-child.ts <url> <schema> <steps> <warm-up steps>');

let starts: StepStarts = { times: [], bytes: [] };
const stepLoop = DBOS.registerWorkflow(
  async (n: number): Promise<number> => {
    let count = 0;
    for (let i = 0; i < n; i++) {
      starts.times.push(performance.now());
      const input = count;
      count = await DBOS.runStep(async () => input + 1, { name: 'increment' });
    }
    return count;
  },
  { name: 'stepLoop' },
);

DBOS.setConfig({
  name: 'agentstate-bench',
  systemDatabaseUrl: url,
  systemDatabaseSchemaName: schema,
  logLevel: 'error',
});
await DBOS.launch();
try {
  await (await DBOS.startWorkflow(stepLoop, { workflowID: 'warm-up' })(warmUp)).getResult();
  starts = { times: [], bytes: [] };
  const started = performance.now();
  const handle = await DBOS.startWorkflow(stepLoop, { workflowID: 'measured' })(steps);
  const count = await handle.getResult();
  const ended = performance.now();
  if (count !== steps) throw new Error(`DBOS counted ${count}, expected ${steps}`);
  process.stdout.write(`${JSON.stringify(stepFigures(starts, started, ended))}\n`);
} finally {
  await DBOS.shutdown();
}
