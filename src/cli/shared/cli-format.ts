/** Text helpers of the human output: aligned tables, local dates, colour (when enabled). */

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
export type Style = keyof typeof CODES;

/** Paints text with ANSI colour, or leaves it plain when colour is off. */
export class Painter {
  constructor(readonly enabled: boolean) {}

  paint(text: string, style: Style | undefined): string {
    if (!this.enabled || style === undefined || text === '') return text;
    return `\u001b[${CODES[style]}m${text}\u001b[0m`;
  }
}

/** The colour of a session or run status. */
export function statusStyle(status: string): Style | undefined {
  if (status === 'active' || status === 'completed') return 'green';
  if (status === 'failed' || status === 'deleted' || status === 'cancelled') return 'red';
  if (status === 'suspended' || status === 'awaitingApproval' || status === 'interrupted') {
    return 'yellow';
  }
  return undefined;
}

/** A cell: its text, and a style painted after the padding is computed. */
export type Cell = string | { text: string; style?: Style | undefined };

const textOf = (cell: Cell) => (typeof cell === 'string' ? cell : cell.text);
const widthOf = (text: string) => [...text].length;

/**
 * Rows under a header, each column as wide as its widest cell, two spaces apart; the last
 * column is not padded. Numbers the caller right-aligns by listing their column in `right`.
 */
export function table(
  header: string[],
  rows: Cell[][],
  painter: Painter,
  right: ReadonlySet<number> = new Set(),
): string {
  const widths = header.map((h, i) =>
    Math.max(widthOf(h), ...rows.map((r) => widthOf(textOf(r[i] ?? '')))),
  );
  const line = (cells: Cell[], head: boolean) =>
    cells
      .map((cell, i) => {
        const text = textOf(cell);
        const pad = ' '.repeat(widths[i]! - widthOf(text));
        const last = i === cells.length - 1;
        const style = head ? 'bold' : typeof cell === 'string' ? undefined : cell.style;
        const painted = painter.paint(text, style);
        if (right.has(i)) return pad + painted;
        return last ? painted : painted + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header, true), ...rows.map((r) => line(r, false))].join('\n') + '\n';
}

/** `label: value` lines with the values aligned. */
export function fields(pairs: [string, Cell][], painter: Painter): string {
  const width = Math.max(...pairs.map(([k]) => widthOf(k)));
  return (
    pairs
      .map(([key, value]) => {
        const text = textOf(value);
        const style = typeof value === 'string' ? undefined : value.style;
        return `${painter.paint(key.padEnd(width), 'dim')}  ${painter.paint(text, style)}`;
      })
      .join('\n') + '\n'
  );
}

const two = (n: number) => String(n).padStart(2, '0');

/** An epoch-ms time as a local date, `2026-11-22 04:15:09`; absent: `-`. */
export function localDate(ms: number | undefined): string {
  if (ms === undefined) return '-';
  const d = new Date(ms);
  return (
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
  );
}

/** Text on one line, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A cost in USD, `$0.0123`; unknown: `-`. */
export function usd(cost: number | undefined): string {
  return cost === undefined ? '-' : `$${cost.toFixed(4)}`;
}

/** JSON for scripts: pretty, one trailing newline. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
