/**
 * `tsx scripts/test-durations.ts <report.json>...`: reads vitest JSON reports (one per tier:
 * `npm test`, `npm run test:long`), rewrites test/DURATIONS.md (each file's time, slowest
 * first, so the next slow file is seen) and ends with the plain line "N passed, N failed"
 * for all reports together. A missing or unreadable report counts as one failure, and so
 * does a file that failed outside its tests.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Report {
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

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIERS: Record<string, string> = { 'test.json': 'npm test', 'test-long.json': 'test:long' };

let passed = 0;
let failed = 0;
const rows: { file: string; tier: string; seconds: number; tests: number }[] = [];
const walls: string[] = [];
for (const path of process.argv.slice(2)) {
  const tier = TIERS[basename(path)] ?? basename(path);
  let report: Report;
  try {
    report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  } catch {
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
  for (const result of report.testResults) {
    rows.push({
      file: relative(ROOT, result.name),
      tier,
      seconds: (result.endTime - result.startTime) / 1000,
      tests: result.assertionResults.length,
    });
  }
}

if (rows.length > 0) {
  rows.sort((a, b) => b.seconds - a.seconds);
  const total = rows.reduce((sum, r) => sum + r.seconds, 0);
  const table = [
    '# Test durations',
    '',
    'Written by `scripts/test-durations.ts` from the vitest JSON reports of the last `.ci/run`',
    '(which refreshes it); commit it when it changes. Seconds of each file from its first test to',
    'its last, slowest first; files run side by side, so they add up to more than the wall time.',
    '',
    `Machine: ${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}.`,
    `Wall time (start of the run to its last test): ${walls.join(', ')}. Files' own time added up: ${total.toFixed(0)} s.`,
    '',
    '| file | tier | tests | seconds |',
    '|---|---|---:|---:|',
    ...rows.map((r) => `| ${r.file} | ${r.tier} | ${r.tests} | ${r.seconds.toFixed(1)} |`),
    '',
  ].join('\n');
  writeFileSync(new URL('../test/DURATIONS.md', import.meta.url), table);
  process.stdout.write(
    `test/DURATIONS.md: the slowest files\n${rows
      .slice(0, 8)
      .map((r) => `  ${r.seconds.toFixed(1).padStart(6)} s  ${r.file} (${r.tier})`)
      .join('\n')}\n`,
  );
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
