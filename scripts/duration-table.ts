/**
 * The table of test/DURATIONS.md, from the vitest JSON reports of one CI run (see
 * scripts/test-durations.ts, which reads the reports and writes the page).
 */

/** The parts of a vitest JSON report the table reads. */
export interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  success: boolean;
  startTime: number;
  testResults: {
    name: string;
    status: string;
    startTime: number;
    endTime: number;
    assertionResults: { status: string }[];
  }[];
}

/** One tier's report: `undefined` when it is missing or unreadable. */
export interface TierReport {
  tier: string;
  report: VitestJsonReport | undefined;
}

export interface DurationRow {
  file: string;
  tier: string;
  tests: number;
  /** `undefined` for a file the report lacks. */
  seconds: number | undefined;
}

export interface DurationTable {
  rows: DurationRow[];
  walls: string[];
  passed: number;
  failed: number;
}

/** The tier that runs every test file: a file its report lacks did not run. */
export const EVERY_FILE_TIER = 'npm test';

/**
 * The rows of every report, slowest first, and the run's counts. `testFiles` are the test
 * files on disk (relative to the repository): each one missing from the report of
 * {@link EVERY_FILE_TIER} gets a row of its own and counts as a failure, so a file left out
 * of `npm test` is seen. A missing report, a run that failed before its files and a file that
 * failed outside its tests count one failure each.
 */
export function durationTable(
  reports: readonly TierReport[],
  testFiles: readonly string[],
  fileOf: (reportName: string) => string,
): DurationTable {
  let passed = 0;
  let failed = 0;
  const rows: DurationRow[] = [];
  const walls: string[] = [];
  for (const { tier, report } of reports) {
    if (!report) {
      failed += 1;
      walls.push(`${tier}: no report`);
      continue;
    }
    passed += report.numPassedTests;
    // A run that failed before or around its files (its global setup threw, no file matched).
    if (!report.success && report.numFailedTests === 0 && report.testResults.length === 0) {
      failed += 1;
      walls.push(`${tier}: the run failed before its tests`);
      continue;
    }
    failed += report.numFailedTests;
    // A file that failed outside its tests: it did not load, or a beforeAll threw (which marks
    // its tests skipped).
    failed += report.testResults.filter(
      (r) => r.status === 'failed' && !r.assertionResults.some((a) => a.status === 'failed'),
    ).length;
    const end = Math.max(report.startTime, ...report.testResults.map((r) => r.endTime));
    walls.push(`${tier}: ${((end - report.startTime) / 1000).toFixed(0)} s`);
    const seen = new Set<string>();
    for (const result of report.testResults) {
      const file = fileOf(result.name);
      seen.add(file);
      rows.push({
        file,
        tier,
        seconds: (result.endTime - result.startTime) / 1000,
        tests: result.assertionResults.length,
      });
    }
    if (tier === EVERY_FILE_TIER) {
      for (const file of testFiles.filter((f) => !seen.has(f))) {
        failed += 1;
        rows.push({ file, tier, seconds: undefined, tests: 0 });
      }
    }
  }
  rows.sort((a, b) => (b.seconds ?? Infinity) - (a.seconds ?? Infinity));
  return { rows, walls, passed, failed };
}

/** The page: a header naming the machine and the wall times, then one line a row. */
export function durationsPage(table: DurationTable, machine: string): string {
  const total = table.rows.reduce((sum, r) => sum + (r.seconds ?? 0), 0);
  return [
    '# Test durations',
    '',
    'Written by `scripts/test-durations.ts` from the vitest JSON reports of the last `.ci/run`',
    '(which refreshes it); commit it when it changes. Seconds of each file from its first test to',
    'its last, slowest first; files run side by side, so they add up to more than the wall time.',
    'A file named `*.int.test.ts` is an integration file; every other one is in `npm run test:unit`.',
    '',
    `Machine: ${machine}.`,
    `Wall time (start of the run to its last test): ${table.walls.join(', ')}. Files' own time added up: ${total.toFixed(0)} s.`,
    '',
    '| file | tier | tests | seconds |',
    '|---|---|---:|---:|',
    ...table.rows.map(
      (r) =>
        `| ${r.file} | ${r.tier} | ${r.tests} | ${r.seconds === undefined ? 'not run' : r.seconds.toFixed(1)} |`,
    ),
    '',
  ].join('\n');
}
