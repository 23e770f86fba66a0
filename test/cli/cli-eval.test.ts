import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDataset } from '../../src/evals/eval-dataset.js';
import { parseEvalReport } from '../../src/evals/eval-report-build.js';
import { LevelSessionStore } from '../../src/index.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { storeBillSessions } from '../helpers/eval-sessions.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 46: `agentstate eval dataset add | run | compare`, in process. */
const MODULE = fileURLToPath(new URL('../helpers/eval-agent-module.ts', import.meta.url));
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Alice's twenty bills sessions in a closed LevelDB folder; the folder and a dataset path. */
async function stored() {
  const temp = await temps.open();
  await storeBillSessions(temp.store, 'alice');
  await temp.store.close();
  return { db: temp.path, folder: temp.folder, file: join(temp.folder, 'bills.jsonl') };
}

const cli = (db: string, args: string[]) => cliInProcess([...args, '--db', db, '--user', 'alice']);
const add = (db: string, file: string, session: string, more: string[] = []) =>
  cli(db, [
    'eval',
    'dataset',
    'add',
    file,
    '--session',
    session,
    '--agent',
    MODULE,
    '--export',
    'baseline',
    ...more,
  ]);

describe('agentstate eval', () => {
  it('dataset add: a run row, model-step rows, tags; a row taken twice is refused (exit 2)', async () => {
    const { db, file } = await stored();
    const one = await add(db, file, 'bill-08', ['--tag', 'approved,big']);
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^added 1 run row of session bill-08 to .*bills\.jsonl: /);
    const steps = await add(db, file, 'bill-09', ['--steps', 'model-steps', '--json']);
    expect(steps.code).toBe(0);
    expect((JSON.parse(steps.stdout) as { added: string[] }).added).toHaveLength(2);
    const rows = parseDataset(await readFile(file, 'utf8'), { name: 'bills' }).rows;
    expect(rows.map((r) => [r.kind, r.source?.sessionId, r.tags])).toEqual([
      ['run', 'bill-08', ['approved', 'big']],
      ['step', 'bill-09', undefined],
      ['step', 'bill-09', undefined],
    ]);
    const again = await add(db, file, 'bill-08');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/INVALID_DATASET/);
    expect(parseDataset(await readFile(file, 'utf8'), { name: 'bills' }).rows).toHaveLength(3);
  });

  it('bad flags are exit 2 naming what is wrong, a session not found exit 3; nothing changes', async () => {
    const { db, file } = await stored();
    const store = await LevelSessionStore.open({ path: db });
    const before = await dumpBackend(store);
    await store.close();
    const addArgs = ['eval', 'dataset', 'add', file, '--agent', MODULE];
    const cases: [string[], RegExp][] = [
      [addArgs, /--session <id> is required/],
      [['eval', 'dataset', 'add', file, '--session', 'bill-01'], /--agent <module> is required/],
      [
        [...addArgs, '--session', 'bill-01', '--export', 'baseline', '--steps', 'some'],
        /--steps must be run, model-steps or step numbers/,
      ],
      [[...addArgs, '--session', 'bill-01', '--export', 'nope'], /exports no Agent named "nope"/],
      [['eval', 'dataset'], /eval dataset: missing the subcommand \(eval dataset add\)/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(db, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
    const missing = await add(db, file, 'nobody');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/SESSION_NOT_FOUND/);
    expect(existsSync(file)).toBe(false);
    const after = await LevelSessionStore.open({ path: db });
    expect(await dumpBackend(after)).toEqual(before);
    await after.close();
  });

  it('eval run and compare: bad flags and files are exit 2 naming what is wrong, and store nothing', async () => {
    const { db, file, folder } = await stored();
    const store = await LevelSessionStore.open({ path: db });
    const before = await dumpBackend(store);
    await store.close();
    const cases: [string[], RegExp][] = [
      [['eval', 'dataset', 'add', file, '--agent', MODULE], /--session <id> is required/],
      [
        [
          'eval',
          'dataset',
          'add',
          file,
          '--session',
          'bill-01',
          '--agent',
          MODULE,
          '--export',
          'baseline',
          '--steps',
          'some',
        ],
        /--steps must be run, model-steps or step numbers/,
      ],
      [
        [
          'eval',
          'dataset',
          'add',
          file,
          '--session',
          'bill-01',
          '--agent',
          MODULE,
          '--export',
          'nope',
        ],
        /exports no Agent named "nope"/,
      ],
      [
        ['eval', 'run', file, '--agent', MODULE, '--export', 'baseline'],
        /--id <evalId> is required/,
      ],
      [
        [
          'eval',
          'run',
          file,
          '--agent',
          MODULE,
          '--export',
          'baseline',
          '--id',
          'e1',
          '--scorers',
          'exact,vibes',
        ],
        /--scorers takes .* got "vibes"/,
      ],
      [
        [
          'eval',
          'run',
          file,
          '--agent',
          MODULE,
          '--export',
          'baseline',
          '--id',
          'e1',
          '--concurrency',
          '0',
        ],
        /--concurrency must be an integer of at least 1/,
      ],
      [
        ['eval', 'compare', file, file, '--max-regressed', '1.5'],
        /--max-regressed must be an integer/,
      ],
      [['eval', 'compare', join(folder, 'none.json'), file], /<baseline>: cannot read/],
      [['eval', 'dataset'], /eval dataset: missing the subcommand \(eval dataset add\)/],
      [['eval'], /eval: which one\? dataset add, run or compare/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(db, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
    // A malformed line: the dataset error names it; the eval stores nothing.
    await writeFile(file, '{"format":"agentstate-eval-row"\n');
    const bad = await cli(db, [
      'eval',
      'run',
      file,
      '--agent',
      MODULE,
      '--export',
      'baseline',
      '--id',
      'e1',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/INVALID_DATASET/);
    expect(bad.stderr).toMatch(/line 1/);
    // A report that is not one.
    const compare = await cli(db, ['eval', 'compare', file, file]);
    expect(compare.code).toBe(2);
    expect(compare.stderr).toMatch(/INVALID_EVAL_REPORT/);
    const after = await LevelSessionStore.open({ path: db });
    expect(await dumpBackend(after)).toEqual(before);
    await after.close();
  });

  it('run writes a report, resumes under its id; compare exits 1 on a regressed row', async () => {
    const { db, file, folder } = await stored();
    for (const session of ['bill-01', 'bill-04', 'bill-08', 'bill-09']) {
      expect((await add(db, file, session)).code).toBe(0);
    }
    const base = join(folder, 'base.json');
    const run = await cli(db, [
      'eval',
      'run',
      file,
      '--agent',
      MODULE,
      '--export',
      'baseline',
      '--id',
      'base',
      '--out',
      base,
      '--label',
      'baseline',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`eval base: 4/4 row(s) passed, 0 failed, 0 errored; wrote ${base}\n`);
    const report = parseEvalReport(await readFile(base, 'utf8'));
    expect(report.label).toBe('baseline');
    expect(report.rows.every((r) => r.pass)).toBe(true);
    // The same id again: the finished eval run's report, nothing run again.
    const again = await cli(db, [
      'eval',
      'run',
      file,
      '--agent',
      MODULE,
      '--export',
      'baseline',
      '--id',
      'base',
      '--json',
    ]);
    expect(again.code).toBe(0);
    expect(parseEvalReport(again.stdout).rows.map((r) => r.rowId)).toEqual(
      report.rows.map((r) => r.rowId),
    );
    const worse = join(folder, 'worse.json');
    const candidate = await cli(db, [
      'eval',
      'run',
      file,
      '--agent',
      MODULE,
      '--export',
      'careless',
      '--id',
      'worse',
      '--out',
      worse,
    ]);
    expect(candidate.code).toBe(0);
    expect(candidate.stdout).toMatch(/^eval worse: 3\/4 row\(s\) passed, 1 failed/);
    const gate = await cli(db, ['eval', 'compare', base, worse, '--max-regressed', '0']);
    expect(gate.code).toBe(1);
    const regressed = report.rows.find((r) => r.rowId.startsWith('bill-01'))!.rowId;
    expect(gate.stdout).toContain(regressed);
    expect(gate.stderr).toMatch(/fails the thresholds/);
    const same = await cli(db, [
      'eval',
      'compare',
      base,
      base,
      '--max-regressed',
      '0',
      '--format',
      'json',
    ]);
    expect(same.code).toBe(0);
    expect((JSON.parse(same.stdout) as { passed: boolean }).passed).toBe(true);
    // The same id with another dataset: EVAL_MISMATCH (exit 2).
    expect((await add(db, file, 'bill-02')).code).toBe(0);
    const mismatch = await cli(db, [
      'eval',
      'run',
      file,
      '--agent',
      MODULE,
      '--export',
      'baseline',
      '--id',
      'base',
    ]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/EVAL_MISMATCH/);
    expect(existsSync(base)).toBe(true);
  });
});
