import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDataset } from '../../src/evals/eval-dataset.js';
import { LevelSessionStore } from '../../src/index.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { storeBillSessions } from '../helpers/eval-sessions.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 46: `agentstate eval dataset add`, in process. */
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
});
