import { describe, expect, it } from 'vitest';
import type { SchedulesChildResult, Stage } from '../../bench/schedules-child.js';
import {
  SCHEDULES_SMOKE_SIZES,
  schedulesNotMeasured,
  schedulesRows,
  type SchedulesRaw,
} from '../../bench/workloads/schedules-figures.js';
import { formatValue, renderTable, type Row } from '../../bench/table.js';

const calls = {
  indexReads: 0,
  indexRecords: 0,
  deadlineReads: 0,
  claims: 0,
  settles: 0,
  rereads: 0,
};

const stage = (cpuMs: number, wallMs: number, statements: number, more = {}): Stage => ({
  cpuMs,
  wallMs,
  ops: { statement: statements },
  calls: { ...calls, ...more },
});

/** One run on PostgreSQL: 20 ticks taking 3x the CPU of the runs alone. */
const result = (cpuPerTick: number): SchedulesChildResult => ({
  store: 'postgres',
  schedules: 200,
  createMs: 400,
  idle: { ...stage(6, 6, 24, { indexReads: 12, deadlineReads: 12 }), pollMs: 5000, wakeUps: 12 },
  idleFloor: { ...stage(1, 1, 0), wakeUps: 0 },
  burst: { ...stage(cpuPerTick * 20, 100, 150, { indexReads: 2, indexRecords: 20 }), ticks: 20 },
  runAlone: { ...stage(20, 50, 90), runs: 20 },
  split: {
    ticks: 5,
    ops: {
      index: { statement: 10 },
      claim: { statement: 5 },
      run: { statement: 30 },
      settle: { statement: 5 },
      other: { statement: 0 },
    },
    calls: { ...calls, indexReads: 5, indexRecords: 15, claims: 5, settles: 5 },
  },
  splitRunAlone: { runs: 5, ops: { statement: 25 } },
});

const raw: SchedulesRaw = {
  sizes: SCHEDULES_SMOKE_SIZES,
  stores: [
    { store: 'level', runs: [], unavailable: 'failed: no folder' },
    { store: 'postgres', runs: [result(3), result(4), result(5)] },
  ],
};

const find = (rows: Row[], section: string, name: string): Row => {
  const row = rows.find((r) => r.section.endsWith(section) && r.name.trim() === name);
  if (!row) throw new Error(`no row "${section}: ${name}"`);
  return row;
};

describe('the schedules bench figures', () => {
  const rows = schedulesRows(raw);

  it('gives the idle minute against its floor, per pass and with the index reads counted', () => {
    const idle = 'an idle simulated minute (pollMs 5000)';
    expect(find(rows, idle, 'scheduler CPU in the minute').summary.median).toBe(6);
    expect(find(rows, idle, 'CPU minus the floor').summary.median).toBe(5);
    expect(find(rows, idle, 'CPU per pass').summary.median).toBe(0.5);
    expect(find(rows, idle, 'next-tick index reads (dueSchedules)').summary.median).toBe(12);
    expect(find(rows, idle, 'store statements').summary.median).toBe(24);
  });

  it('gives each fired tick against the run alone, per tick and as a ratio over the runs', () => {
    const burst = '20 ticks due at one minute, fired side by side';
    expect(find(rows, burst, 'CPU per tick').summary).toMatchObject({ median: 4, min: 3, max: 5 });
    expect(find(rows, burst, 'tick / run alone: CPU').summary.median).toBe(4);
    expect(find(rows, burst, 'wall time per tick').summary.median).toBe(5);
    expect(find(rows, burst, 'ticks per second').summary.median).toBe(200);
    expect(find(rows, burst, 'store operations per tick').summary.median).toBe(7.5);
    expect(find(rows, burst, 'floor: store operations per run alone').summary.median).toBe(4.5);
    expect(find(rows, burst, 'records they returned per tick').summary.median).toBe(1);
  });

  it('splits the store operations per tick by phase, with the run alone one at a time beside it', () => {
    const split = '5 ticks fired one at a time: store operations per tick, by phase';
    expect(find(rows, split, 'all phases').summary.median).toBe(10);
    expect(find(rows, split, 'claim: all').summary.median).toBe(1);
    expect(find(rows, split, 'the run: all').summary.median).toBe(6);
    expect(find(rows, split, 'settle: all').summary.median).toBe(1);
    expect(find(rows, split, 'index reads (deadlines and schedules): all').summary.median).toBe(2);
    expect(find(rows, split, 'floor: the run alone, one at a time: per run').summary.median).toBe(
      5,
    );
  });

  it('names the store that was not measured, and why', () => {
    expect(rows.some((r) => r.section.includes('LevelDB'))).toBe(false);
    expect(schedulesNotMeasured(raw)).toEqual([
      'Schedules on LevelDB: not measured: failed: no folder',
    ]);
    expect(renderTable(rows, 3)).toContain('Schedules, 200 in the store, PostgreSQL');
  });

  it('prints a count per tick whole when it is, else with two decimals', () => {
    expect(formatValue(3, 'mean')).toBe('3');
    expect(formatValue(7.5, 'mean')).toBe('7.50');
  });
});
