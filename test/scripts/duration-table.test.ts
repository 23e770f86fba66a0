import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  durationsPage,
  durationTable,
  type VitestJsonReport,
} from '../../scripts/duration-table.js';

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/durations/${name}`, import.meta.url), 'utf8'),
  ) as VitestJsonReport;
const fileOf = (name: string) => name.replace('/repo/', '');
const ON_DISK = [
  'test/a/slow.int.test.ts',
  'test/a/same-ms.test.ts',
  'test/b/no-load.test.ts',
  'test/b/left-out.test.ts',
];

describe('the test durations table (scripts/duration-table.ts)', () => {
  it('lists every test file: one whose tests ran within one millisecond, one that did not load, and one npm test left out', () => {
    const table = durationTable(
      [
        { tier: 'npm test', report: fixture('test.json') },
        { tier: 'test:long', report: fixture('test-long.json') },
      ],
      ON_DISK,
      fileOf,
    );
    expect(table.rows).toEqual([
      { file: 'test/b/left-out.test.ts', tier: 'npm test', tests: 0, seconds: undefined },
      { file: 'test/a/slow.int.test.ts', tier: 'test:long', tests: 2, seconds: 21 },
      { file: 'test/a/slow.int.test.ts', tier: 'npm test', tests: 2, seconds: 3.4 },
      { file: 'test/a/same-ms.test.ts', tier: 'npm test', tests: 3, seconds: 0 },
      { file: 'test/b/no-load.test.ts', tier: 'npm test', tests: 0, seconds: 0 },
    ]);
    // the file that did not load and the file npm test left out each count as a failure
    expect([table.passed, table.failed]).toEqual([7, 2]);
    expect(table.walls).toEqual(['npm test: 4 s', 'test:long: 22 s']);
  });

  it('writes one line a row, the files npm test left out first', () => {
    const table = durationTable(
      [{ tier: 'npm test', report: fixture('test.json') }],
      ON_DISK,
      fileOf,
    );
    const lines = durationsPage(table, '2 cores').split('\n');
    expect(lines.filter((l) => l.startsWith('| test/'))).toEqual([
      '| test/b/left-out.test.ts | npm test | 0 | not run |',
      '| test/a/slow.int.test.ts | npm test | 2 | 3.4 |',
      '| test/a/same-ms.test.ts | npm test | 3 | 0.0 |',
      '| test/b/no-load.test.ts | npm test | 0 | 0.0 |',
    ]);
    expect(lines).toContain('Machine: 2 cores.');
  });

  it('counts a missing report and a run that failed before its files as failures', () => {
    const empty: VitestJsonReport = {
      numPassedTests: 0,
      numFailedTests: 0,
      success: false,
      startTime: 0,
      testResults: [],
    };
    const table = durationTable(
      [
        { tier: 'npm test', report: undefined },
        { tier: 'test:long', report: empty },
      ],
      ON_DISK,
      fileOf,
    );
    expect(table).toEqual({
      rows: [],
      walls: ['npm test: no report', 'test:long: the run failed before its tests'],
      passed: 0,
      failed: 2,
    });
  });
});
