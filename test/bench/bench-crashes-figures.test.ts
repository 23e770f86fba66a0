import { describe, expect, it } from 'vitest';
import {
  crashesFailures,
  crashesRows,
  type CrashesChildResult,
  type CrashesRaw,
} from '../../bench/workloads/crashes-figures.js';

const result = (points: number, ms: number, passed = points): CrashesChildResult => ({
  boundaries: 11,
  points,
  passed,
  ms,
});

/** Figures to a thousandth (a rate is a division). */
const rounded = (values: number[]): number[] => values.map((v) => Math.round(v * 1000) / 1000);

const raw: CrashesRaw = {
  scenarios: [
    {
      scenario: 'bills',
      runs: {
        memory: [result(33, 1000), result(33, 1100)],
        level: [result(33, 2000), result(33, 1650)],
        processes: [result(33, 20_000), result(33, 33_000)],
      },
    },
  ],
};

describe('the crash exploration bench figures', () => {
  it('points per second of each mode, and the time per point in children over the simulated modes, run by run', () => {
    const rows = crashesRows(raw);
    expect(rows.map((r) => [r.section, r.name, r.unit])).toEqual([
      ...[
        ['points per second: simulated, in-memory store', 'mean'],
        ['points per second: simulated, LevelDB', 'mean'],
        ['points per second: child processes (SIGKILL), LevelDB', 'mean'],
        ['time per point: child processes / simulated, in-memory store', 'x'],
        ['time per point: child processes / simulated, LevelDB', 'x'],
      ].map(([name, unit]) => [
        'Crash exploration, the bills example (11 writes, 33 points)',
        name,
        unit,
      ]),
    ]);
    expect(rounded(rows[0]!.summary.values)).toEqual([33, 30]);
    expect(rounded(rows[2]!.summary.values)).toEqual([1.65, 1]);
    // The n-th child run over the n-th simulated one: 20,000 / 1,000 and 33,000 / 1,100.
    expect(rounded(rows[3]!.summary.values)).toEqual([20, 30]);
    expect(rounded(rows[4]!.summary.values)).toEqual([10, 20]);
    expect(crashesFailures(raw)).toEqual([]);
  });

  it('names a subset, and a point that failed', () => {
    const failed: CrashesRaw = {
      writes: [4, 7],
      scenarios: [
        {
          scenario: 'support',
          runs: { memory: [result(6, 500)], level: [result(6, 600, 5)], processes: [] },
        },
      ],
    };
    const rows = crashesRows(failed);
    expect(rows.map((r) => r.name)).toEqual([
      'points per second: simulated, in-memory store',
      'points per second: simulated, LevelDB',
    ]);
    expect(rows[0]!.section).toBe(
      'Crash exploration, the support example (11 writes, 6 points, a subset)',
    );
    expect(crashesFailures(failed)).toEqual(['support, simulated, LevelDB: 1 of 6 points failed']);
  });
});
