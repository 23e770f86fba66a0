/**
 * The workflow bench (issue 42), part 2: instances each waiting on a durable timer (`after`,
 * three days), hosted by `workflows()` on LevelDB, against the same machine's plain XState
 * actors held live: the memory they add to the process that hosts them (hosted instances are
 * stored, not held: they should add next to nothing), and how long after its due time a timer
 * fires when the scheduler fires it (read from the store's deadline index, not a scan of the
 * instances: the first due instance, with every other one waiting, and the last). Each side
 * runs in a fresh process (`workflow-timers-child.ts`).
 */
import { join } from 'node:path';
import { runChild } from '../child.js';
import { tempDir } from '../fixtures.js';
import { median } from '../stats.js';
import { rowsOf, type Row, type TargetResult } from '../table.js';

/** The memory a side's instances added (bytes), after a full GC. */
export interface AddedMemory {
  rssDelta: number;
  heapDelta: number;
  /** Per instance over the second half alone (the first also pays for code compiled, caches). */
  rssPerInstance: number;
  heapPerInstance: number;
}

/** The hosted side's figures (bytes, milliseconds). */
export interface HostedTimers extends AddedMemory {
  /** Mean time to start one instance (saved, its timer in the deadline index). */
  startMs: number;
  /** Reading every instance once (`get`), for reference: what a scan would at least cost. */
  readAllMs: number;
  /** From the clock reaching the first due time to that timer's transition, all others waiting. */
  firstDelayMs: number;
  /** From the clock reaching the second-to-last due time to all but the last fired. */
  restMs: number;
  /** From the clock reaching the last due time to the last timer's transition. */
  lastDelayMs: number;
}

/** One run: both sides, each in a fresh process. */
export interface WorkflowTimersRun {
  instances: number;
  hosted: HostedTimers;
  /** The same machine as plain XState actors held live. */
  xstate: AddedMemory & { waiting: number };
}

const child = <T>(args: string[]): Promise<T> =>
  runChild<T>('workflow-timers-child.ts', args, ['--expose-gc']);

/** `runs` runs of both sides with `instances` instances each. */
export async function runWorkflowTimers(
  instances: number,
  runs: number,
  log: (message: string) => void,
): Promise<WorkflowTimersRun[]> {
  const out: WorkflowTimersRun[] = [];
  for (let run = 0; run < runs; run++) {
    log(`workflows: ${instances} instances waiting on a durable timer, run ${run + 1}/${runs}`);
    const dir = await tempDir('agentstate-bench-timers-');
    try {
      const hosted = await child<HostedTimers>(['hosted', String(instances), join(dir.path, 'db')]);
      log(`workflows: ${instances} plain XState actors held live, run ${run + 1}/${runs}`);
      const xstate = await child<WorkflowTimersRun['xstate']>(['xstate', String(instances)]);
      out.push({ instances, hosted, xstate });
    } finally {
      await dir.cleanup();
    }
  }
  return out;
}

/** The rows of part 2. */
export function workflowTimersRows(runs: WorkflowTimersRun[]): Row[] {
  const n = runs[0]!.instances;
  return rowsOf(`${n} workflow instances, each waiting on a durable timer (LevelDB)`, runs, [
    ['RSS they add (after a full GC)', 'bytes', (r) => r.hosted.rssDelta],
    ['heap they add', 'bytes', (r) => r.hosted.heapDelta],
    ['RSS per instance (the second half)', 'bytes', (r) => r.hosted.rssPerInstance],
    ['heap per instance (the second half)', 'bytes', (r) => r.hosted.heapPerInstance],
    [`RSS added by ${n} plain XState actors held live`, 'bytes', (r) => r.xstate.rssDelta],
    [`heap added by ${n} plain XState actors held live`, 'bytes', (r) => r.xstate.heapDelta],
    ['RSS per actor held live (the second half)', 'bytes', (r) => r.xstate.rssPerInstance],
    ['heap per actor held live (the second half)', 'bytes', (r) => r.xstate.heapPerInstance],
    ['  RSS they add / actors held live', 'x', (r) => r.hosted.rssDelta / r.xstate.rssDelta],
    ['  heap per instance / per actor held live', 'x', (r) => heapRatio(r)],
    ['time to start one (mean)', 'ms', (r) => r.hosted.startMs],
    ['due time to firing: the first due (all others waiting)', 'ms', (r) => r.hosted.firstDelayMs],
    ['due time to firing: the last due', 'ms', (r) => r.hosted.lastDelayMs],
    [`firing the ${n - 2} between them, all due at once`, 'ms', (r) => r.hosted.restMs],
    ['  per timer', 'ms', (r) => r.hosted.restMs / (n - 2)],
    ['reading every instance once (what a scan costs at least)', 'ms', (r) => r.hosted.readAllMs],
    ['  first due firing / that read', '%', (r) => scanRatio(r)],
  ]);
}

const heapRatio = (r: WorkflowTimersRun): number =>
  r.hosted.heapPerInstance / r.xstate.heapPerInstance;
const scanRatio = (r: WorkflowTimersRun): number => r.hosted.firstDelayMs / r.hosted.readAllMs;

/** The part's targets, on the medians over runs. Never throws: a miss is reported. */
export function workflowTimersTargets(runs: WorkflowTimersRun[]): TargetResult[] {
  const n = runs[0]!.instances;
  const heap = median(runs.map(heapRatio));
  const scan = median(runs.map(scanRatio));
  return [
    {
      name: `${n} waiting workflow instances: heap per instance / per plain XState actor held live`,
      value: heap,
      limit: '<= 0.10x',
      unit: 'x',
      pass: heap <= 0.1,
    },
    {
      name: `${n} waiting workflow instances: first timer's firing delay / reading them all`,
      value: scan,
      limit: '<= 10%',
      unit: '%',
      pass: scan <= 0.1,
    },
  ];
}
