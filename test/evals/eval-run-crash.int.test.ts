import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { EvalReport } from '../../src/evals/eval-report.js';
import { spawnScript } from '../helpers/child-process.js';
import { TempStores } from '../helpers/temp-store.js';

const CHILD = 'test/helpers/eval-crash-child.ts';
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Runs the child in `mode`; SIGKILLs it at its `kill-me` line. Its lines, and whether it was killed. */
async function round(folder: string, mode: 'first' | 'second') {
  const child = await spawnScript(CHILD, [folder, mode]);
  const lines: string[] = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    if (line === 'kill-me') child.kill('SIGKILL');
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('close', (code, sig) => {
      if (sig === null && code !== 0) lines.push(`exited ${code}: ${stderr}`);
      resolve(sig);
    }),
  );
  return { lines, killed: signal === 'SIGKILL', stderr };
}

const after = (lines: string[], prefix: string): unknown => {
  const line = lines.find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`no "${prefix}" line in:\n${lines.join('\n')}`);
  return JSON.parse(line.slice(prefix.length));
};

describe('an eval run SIGKILLed half way', () => {
  it('resumes in a new process without running its finished rows again; the report has every row', async () => {
    const folder = await temps.folder();
    const first = await round(folder, 'first');
    expect(first.killed).toBe(true);
    const second = await round(folder, 'second');
    const journaled = after(second.lines, 'journaled ') as string[];
    const report = EvalReport.parse(after(second.lines, 'report '));

    const ledger = (await readFile(`${folder}/ledger`, 'utf8')).trim().split('\n');
    const asked = (mode: string) =>
      ledger.filter((l) => l.startsWith(`${mode} `)).map((l) => l.slice(mode.length + 1));
    // Killed at its seventh model call (the other lane may have asked for one more meanwhile).
    expect(asked('first').length).toBeGreaterThanOrEqual(7);
    expect(journaled.length).toBeGreaterThan(0);
    // A row whose result was stored is never asked again; every other row is.
    expect(asked('second').filter((id) => journaled.includes(id))).toEqual([]);
    expect([...journaled, ...asked('second')].sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `row-${i}`).sort(),
    );
    expect(report.rows.map((r) => r.rowId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `row-${i}`),
    );
    expect(report.summary).toMatchObject({ rows: 10, passed: 10, errored: 0 });
  });
});
