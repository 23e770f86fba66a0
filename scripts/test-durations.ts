/**
 * `tsx scripts/test-durations.ts <report.json>...`: reads vitest JSON reports (one per tier:
 * `npm test`, `npm run test:long`), rewrites test/DURATIONS.md (each test file's time, slowest
 * first, so the next slow file is seen; scripts/duration-table.ts) and ends with the plain line
 * "N passed, N failed" for all reports together. A missing or unreadable report counts as one
 * failure, and so does a file that failed outside its tests or that `npm test` did not run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { durationsPage, durationTable, type VitestJsonReport } from './duration-table.js';
import { testFiles } from './test-files.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIERS: Record<string, string> = { 'test.json': 'npm test', 'test-long.json': 'test:long' };

const read = (path: string): VitestJsonReport | undefined => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as VitestJsonReport;
  } catch {
    return undefined;
  }
};
const repoPath = (path: string) => relative(ROOT, path).split(sep).join('/');

const table = durationTable(
  process.argv.slice(2).map((path) => ({
    tier: TIERS[basename(path)] ?? basename(path),
    report: read(path),
  })),
  testFiles(join(ROOT, 'test')).map((f) => `test/${f}`),
  repoPath,
);
if (table.rows.length > 0) {
  const machine = `${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
  writeFileSync(new URL('../test/DURATIONS.md', import.meta.url), durationsPage(table, machine));
  process.stdout.write(
    `test/DURATIONS.md: the slowest files\n${table.rows
      .slice(0, 8)
      .map((r) => `  ${(r.seconds?.toFixed(1) ?? 'not run').padStart(7)} s  ${r.file} (${r.tier})`)
      .join('\n')}\n`,
  );
}
process.stdout.write(`${table.passed} passed, ${table.failed} failed\n`);
