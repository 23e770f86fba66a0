import { summarize, type Summary } from './stats.js';

/** One line of the results table: a measured figure over several runs. */
export interface Row {
  section: string;
  name: string;
  unit: Unit;
  summary: Summary;
}

export type Unit = 'ms' | 'bytes' | 'x' | 'msg/s' | '/s' | '%' | 'count' | 'mean' | 'score';

/** The rows of one section: each figure picked from every run and summarised. */
export function rowsOf<T>(
  section: string,
  runs: T[],
  figures: [string, Unit, (run: T) => number][],
): Row[] {
  return figures.map(([name, unit, pick]) => ({
    section,
    name,
    unit,
    summary: summarize(runs.map(pick)),
  }));
}

/** One target of the issue and whether the run met it. */
export interface TargetResult {
  name: string;
  /** The measured value (median over runs), in `unit`. */
  value: number;
  limit: string;
  unit: Unit;
  pass: boolean;
}

/** What a part of the bench (`--memory`, `--schedules`, `--crashes`) gives the report. */
export interface BenchPart<Raw> {
  kind: string;
  rows: Row[];
  targets: TargetResult[];
  raw: Raw;
  notes: string[];
}

export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return 'n/a';
  switch (unit) {
    case 'ms':
      return value >= 100
        ? `${value.toFixed(0)} ms`
        : value >= 1
          ? `${value.toFixed(2)} ms`
          : `${(value * 1000).toFixed(0)} us`;
    case 'bytes': {
      const abs = Math.abs(value);
      if (abs >= 1024 * 1024) return `${(value / (1024 * 1024)).toFixed(1)} MB`;
      if (abs >= 1024) return `${(value / 1024).toFixed(1)} KB`;
      return `${value.toFixed(0)} B`;
    }
    case 'x':
      return `${value.toFixed(2)}x`;
    case 'msg/s':
      return `${value.toFixed(0)} msg/s`;
    case '/s':
      return `${value.toFixed(0)}/s`;
    case '%':
      return `${(value * 100).toFixed(1)}%`;
    case 'count':
      return value.toFixed(0);
    case 'mean':
      // A count per something (statements per tick): whole when it is, else two decimals.
      return Number.isInteger(value) ? value.toFixed(0) : value.toFixed(2);
    case 'score':
      return value.toFixed(3);
  }
}

function pad(cells: string[][]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('  '),
    )
    .join('\n');
}

/** The figures as an aligned text table, one block per section: median, min, max. */
export function renderTable(rows: readonly Row[], runs: number): string {
  const out: string[] = [];
  const sections = [...new Set(rows.map((r) => r.section))];
  for (const section of sections) {
    const cells = [[section, `median of ${runs}`, 'min', 'max']];
    for (const row of rows.filter((r) => r.section === section)) {
      const { median, min, max } = row.summary;
      cells.push([
        `  ${row.name}`,
        formatValue(median, row.unit),
        formatValue(min, row.unit),
        formatValue(max, row.unit),
      ]);
    }
    out.push(pad(cells));
  }
  return out.join('\n\n');
}

/** The targets with PASS or MISS. */
export function renderTargets(targets: readonly TargetResult[]): string {
  const cells = [['target', 'measured', 'limit', '']];
  for (const t of targets)
    cells.push([t.name, formatValue(t.value, t.unit), t.limit, t.pass ? 'PASS' : 'MISS']);
  return pad(cells);
}

/** The same tables as Markdown (for bench/README.md). */
export function renderMarkdown(
  rows: readonly Row[],
  targets: readonly TargetResult[],
  runs: number,
): string {
  const lines = [`| figure | median of ${runs} | min | max |`, '|---|---:|---:|---:|'];
  for (const row of rows) {
    const { median, min, max } = row.summary;
    lines.push(
      `| ${row.section}: ${row.name.trim()} | ${formatValue(median, row.unit)} | ${formatValue(min, row.unit)} | ${formatValue(max, row.unit)} |`,
    );
  }
  lines.push('', '| target | measured | limit | |', '|---|---:|---:|---|');
  for (const t of targets)
    lines.push(
      `| ${t.name} | ${formatValue(t.value, t.unit)} | ${t.limit} | ${t.pass ? 'PASS' : 'MISS'} |`,
    );
  return lines.join('\n');
}
