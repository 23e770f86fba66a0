import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidDatasetError } from '../../src/errors/eval-errors.js';
import {
  appendRows,
  parseDataset,
  readDataset,
  writeDataset,
} from '../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

function row(id: string, output = 'done'): EvalRow {
  return {
    format: 'agentstate-eval-row',
    version: 1,
    id,
    agent: 'bills',
    fingerprint: { model: 'abc' },
    kind: 'run',
    input: [{ type: 'message', role: 'user', content: `pay ${id}` }],
    recorded: {
      status: 'completed',
      output,
      toolCalls: [],
      trajectory: [],
      turns: 1,
      usage: { inputTokens: 1, outputTokens: 2 },
    },
  };
}

const line = (r: EvalRow) => JSON.stringify(r);

describe('datasets as JSONL', () => {
  it('parses rows line by line, skipping blank lines, with a hash of the lines as stored', () => {
    const text = `${line(row('a'))}\n\n${line(row('b'))}\n`;
    const dataset = parseDataset(text, { name: 'bills' });
    expect(dataset.name).toBe('bills');
    expect(dataset.rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(dataset.hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(parseDataset(`${line(row('a'))}\n${line(row('b'))}`, { name: 'x' }).hash).toBe(
      dataset.hash,
    );
    expect(
      parseDataset(`${line(row('a'))}\n${line(row('b', 'other'))}`, { name: 'x' }).hash,
    ).not.toBe(dataset.hash);
  });

  it('a line that is not JSON names the line', () => {
    const text = `${line(row('a'))}\n{"format": "agentstate-eval-row",\n`;
    const error = catchError(() => parseDataset(text, { name: 'd' }));
    expect(error).toBeInstanceOf(InvalidDatasetError);
    expect(error).toMatchObject({ code: 'INVALID_DATASET', line: 2 });
    expect((error as Error).message).toMatch(/line 2.*not JSON/);
  });

  it('a line that is not a row names the line, the row and the field', () => {
    const bad = { ...row('b'), recorded: { ...row('b').recorded, turns: -1 } };
    const error = catchError(() =>
      parseDataset(`${line(row('a'))}\n${JSON.stringify(bad)}`, { name: 'd' }),
    );
    expect(error).toMatchObject({ line: 2, rowId: 'b', path: 'recorded.turns' });
  });

  it('two rows with one id name the second line and the id', () => {
    const error = catchError(() =>
      parseDataset(`${line(row('a'))}\n${line(row('b'))}\n${line(row('a'))}`, { name: 'd' }),
    );
    expect(error).toMatchObject({ line: 3, rowId: 'a' });
    expect((error as Error).message).toContain('line 1');
  });

  it('writes and appends whole files (temp file renamed), and reads them back', async () => {
    const folder = await temps.folder();
    const path = join(folder, 'bills.jsonl');
    const written = await writeDataset(path, [row('a')]);
    const appended = await appendRows(path, [row('b'), row('c')]);
    const read = await readDataset(path);
    expect(read.name).toBe('bills');
    expect(read.rows.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(read.hash).toBe(appended.hash);
    expect(read.hash).not.toBe(written.hash);
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(4);
    expect(await readdir(folder)).toEqual(['bills.jsonl']);
  });

  it('keeps the lines already stored as they are when appending', async () => {
    const folder = await temps.folder();
    const path = join(folder, 'd.jsonl');
    const handWritten = `${JSON.stringify({ ...row('a'), tags: ['hand'] }, null, 0)}\n`;
    await writeFile(path, handWritten);
    await appendRows(path, [row('b')]);
    expect((await readFile(path, 'utf8')).startsWith(handWritten)).toBe(true);
  });

  it('appending a taken id, or a row that is not one, writes nothing', async () => {
    const folder = await temps.folder();
    const path = join(folder, 'd.jsonl');
    await writeDataset(path, [row('a'), row('b')]);
    const before = await readFile(path, 'utf8');
    await expect(appendRows(path, [row('c'), row('a')])).rejects.toMatchObject({
      code: 'INVALID_DATASET',
      rowId: 'a',
    });
    const notARow = { ...row('d'), kind: 'everything' } as unknown as EvalRow;
    await expect(appendRows(path, [notARow])).rejects.toMatchObject({ rowId: 'd', path: 'kind' });
    await expect(writeDataset(path, [row('x'), row('x')])).rejects.toMatchObject({ rowId: 'x' });
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(await readdir(folder)).toEqual(['d.jsonl']);
  });

  it('a missing file reads as an empty dataset; a malformed file names its line', async () => {
    const folder = await temps.folder();
    expect((await readDataset(join(folder, 'none.jsonl'))).rows).toEqual([]);
    const path = join(folder, 'bad.jsonl');
    await writeFile(path, `${line(row('a'))}\nnot json\n`);
    await expect(readDataset(path)).rejects.toMatchObject({ code: 'INVALID_DATASET', line: 2 });
    expect(() => parseDataset('', { name: '' })).toThrow(TypeError);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
