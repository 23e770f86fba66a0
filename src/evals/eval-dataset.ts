import { createHash } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { InvalidDatasetError } from '../errors/eval-errors.js';
import { EvalRow } from './eval-row.js';

/**
 * An eval dataset: its rows, as a JSONL file holds them (one row a line), the app commits it.
 * `hash` is the SHA-256 (base64url) of its lines as stored: an eval run records it, and a
 * resumed eval run refuses another dataset under the same id.
 */
export interface EvalDataset {
  name: string;
  rows: EvalRow[];
  hash: string;
}

/** The dataset hash of `lines` (each a row's JSON, in order). */
function hashOf(lines: readonly string[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\n');
  return hash.digest('base64url');
}

/** The first problem zod found in a row, as a path and a reason. */
function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): {
  path: string;
  reason: string;
} {
  const issue = error.issues[0];
  const path = (issue?.path ?? []).map(String).join('.');
  return { path, reason: issue?.message ?? 'not a row' };
}

/**
 * The rows of a JSONL dataset's text (blank lines skipped). A line that is not JSON or not a
 * row, or a row whose id an earlier line has: `InvalidDatasetError` naming the line (and the
 * field, or the row id).
 */
export function parseDataset(text: string, options: { name: string }): EvalDataset {
  return parsedLines(text, options).dataset;
}

function parsedLines(
  text: string,
  options: { name: string },
): { dataset: EvalDataset; lines: string[] } {
  if (typeof text !== 'string') throw new TypeError('parseDataset(): text must be a string');
  if (typeof options?.name !== 'string' || options.name.length === 0) {
    throw new TypeError('parseDataset(): options.name must be a non-empty string');
  }
  const rows: EvalRow[] = [];
  const lines: string[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line.length === 0) return;
    const at = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InvalidDatasetError({ line: at }, `not JSON (${(error as Error).message})`);
    }
    const parsed = EvalRow.safeParse(value);
    if (!parsed.success) {
      const { path, reason } = firstIssue(parsed.error);
      const id = (value as { id?: unknown } | null)?.id;
      throw new InvalidDatasetError(
        { line: at, rowId: typeof id === 'string' ? id : undefined, path },
        reason,
      );
    }
    const row = parsed.data;
    const earlier = seen.get(row.id);
    if (earlier !== undefined) {
      throw new InvalidDatasetError(
        { line: at, rowId: row.id },
        `the id is taken by the row on line ${earlier}`,
      );
    }
    seen.set(row.id, at);
    rows.push(row);
    lines.push(line);
  });
  return { dataset: { name: options.name, rows, hash: hashOf(lines) }, lines };
}

/** A dataset's name from its file: the file name without `.jsonl`. */
const nameOf = (path: string): string => basename(path, extname(path)) || path;

/**
 * The dataset in the JSONL file at `path` (its name: the file name without extension). A
 * missing file is an empty dataset.
 */
export async function readDataset(path: string): Promise<EvalDataset> {
  return (await readLines(path)).dataset;
}

async function readLines(path: string): Promise<{ dataset: EvalDataset; lines: string[] }> {
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError('readDataset(): path must be a non-empty string');
  }
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return parsedLines(text, { name: nameOf(path) });
}

/** Each row checked (`InvalidDatasetError` naming the row and the field) as one JSON line. */
function rowLines(rows: readonly EvalRow[], taken: Map<string, number>): string[] {
  if (!Array.isArray(rows)) throw new TypeError('rows must be an array of eval rows');
  return rows.map((row, i) => {
    const parsed = EvalRow.safeParse(row);
    const id = (row as { id?: unknown } | null)?.id;
    const rowId = typeof id === 'string' ? id : undefined;
    if (!parsed.success) {
      const { path, reason } = firstIssue(parsed.error);
      throw new InvalidDatasetError({ rowId, path }, reason);
    }
    const earlier = taken.get(parsed.data.id);
    if (earlier !== undefined) {
      throw new InvalidDatasetError(
        { rowId: parsed.data.id },
        earlier < 0
          ? 'the id is taken by another row written with it'
          : 'the id is taken in the dataset',
      );
    }
    taken.set(parsed.data.id, -1 - i);
    return JSON.stringify(parsed.data);
  });
}

/** Writes `text` next to `path` and renames it over: a crash leaves the old file or the new one. */
async function replaceFile(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Writes `rows` as the JSONL dataset at `path` (one row a line), replacing it whole: written to
 * a temporary file and renamed, so a crash never leaves half a file. Rows are checked first
 * (two with one id: `InvalidDatasetError`); nothing is written then.
 */
export async function writeDataset(path: string, rows: readonly EvalRow[]): Promise<EvalDataset> {
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError('writeDataset(): path must be a non-empty string');
  }
  const lines = rowLines(rows, new Map());
  await replaceFile(path, lines.map((l) => `${l}\n`).join(''));
  return {
    name: nameOf(path),
    rows: lines.map((l) => EvalRow.parse(JSON.parse(l))),
    hash: hashOf(lines),
  };
}

/**
 * Appends `rows` to the JSONL dataset at `path` (created when missing), as `writeDataset`
 * writes: the whole file replaced at once. A row whose id the dataset has already:
 * `InvalidDatasetError` naming it, and nothing is written.
 */
export async function appendRows(path: string, rows: readonly EvalRow[]): Promise<EvalDataset> {
  const { dataset, lines: kept } = await readLines(path);
  const taken = new Map(dataset.rows.map((r, i) => [r.id, i]));
  const added = rowLines(rows, taken);
  const lines = [...kept, ...added];
  await replaceFile(path, lines.map((l) => `${l}\n`).join(''));
  return {
    name: dataset.name,
    rows: [...dataset.rows, ...added.map((l) => EvalRow.parse(JSON.parse(l)))],
    hash: hashOf(lines),
  };
}
