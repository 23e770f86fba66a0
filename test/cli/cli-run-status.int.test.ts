import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { killLiveWorkers } from '../helpers/crash-driver.js';
import { CRASH_SESSION } from '../helpers/crash-point.js';
import { crashedFolder } from '../helpers/crashed-folder.js';
import { writePausedAndFailed } from '../helpers/run-status-fixtures.js';

/**
 * Issue 26 on the command line: `sessions list` and `sessions show` say what a session's run
 * does (running, crashed, paused and why, how it ended and its error), with the usage so far,
 * and list every pending approval (with or without a deadline).
 */
let cli: BuiltCli;
let work: string;
let db: string;

/** The crash worker's session SIGKILLed mid-run, then alice's `paused` and `failed` beside it. */
async function writeFolder(): Promise<void> {
  const store = await LevelSessionStore.open({ path: await crashedFolder(work) });
  try {
    await writePausedAndFailed(store);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-runs-'));
  db = join(work, 'db');
  [cli] = await Promise.all([buildCli(), writeFolder()]);
}, 240_000);

afterAll(async () => {
  killLiveWorkers();
  await cli?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

const as = (...args: string[]) => runCli(cli, [...args, '--db', db]);
/** The table row of `sessionId` in `stdout`, cut into its cells. */
const rowOf = (stdout: string, sessionId: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${sessionId} `))
    ?.split(/\s{2,}/);

describe('sessions list and show: the run, why, and the usage so far', () => {
  it('a run whose process was SIGKILLed reads as crashed, with what to do', async () => {
    const show = await as('sessions', 'show', CRASH_SESSION.sessionId, '--user', 'u');
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^run\s+\S+ crashed: its process stopped with steps in flight/m);
    const json = await as('sessions', 'show', CRASH_SESSION.sessionId, '--user', 'u', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'active',
      runStatus: { status: 'crashed' },
      run: { status: 'crashed' },
    });
    const list = await as('sessions', 'list', '--user', 'u');
    expect(list.stdout.split('\n')[0]).toMatch(/\sRUN\s+WAITING$/);
    expect(rowOf(list.stdout, CRASH_SESSION.sessionId)).toContain('crashed');
  }, 60_000);

  it('a paused run: the tokens it used so far', async () => {
    const show = await as('sessions', 'show', 'paused', '--user', 'alice');
    expect(show.stdout).toMatch(
      /^usage\s+1 turns, 100 in \/ 20 out tokens, \$0\.0000 \(100 in \/ 20 out of them in the awaitingApproval run\)$/m,
    );
    const list = await as('sessions', 'list', '--user', 'alice');
    expect(rowOf(list.stdout, 'paused')).toEqual(
      expect.arrayContaining(['120', 'awaitingApproval']),
    );
    const json = await as('sessions', 'list', '--user', 'alice', '--json');
    const listed = (JSON.parse(json.stdout) as { sessionId: string }[]).find(
      (s) => s.sessionId === 'paused',
    );
    expect(listed).toMatchObject({
      usage: { inputTokens: 0, outputTokens: 0 },
      usageSoFar: { inputTokens: 100, outputTokens: 20 },
      runStatus: { status: 'awaitingApproval', pendingApprovals: 1 },
    });
  }, 60_000);

  it('sessions list shows a pending approval that has no deadline', async () => {
    const list = await as('sessions', 'list', '--user', 'alice');
    expect(rowOf(list.stdout, 'paused')?.at(-1)).toBe('1 approval');
    expect(rowOf(list.stdout, 'failed')?.at(-1)).not.toMatch(/approval/);
  }, 60_000);

  it('a failed run: its typed error in show and its code in the list; the session stays active', async () => {
    const show = await as('sessions', 'show', 'failed', '--user', 'alice');
    expect(show.stdout).toMatch(/^status\s+active$/m);
    expect(show.stdout).toMatch(/^last run\s+\S+ failed, 1 turns/m);
    expect(show.stdout).toMatch(
      /^last error\s+OutputValidationError: .*JSON.* \[OUTPUT_VALIDATION\]$/m,
    );
    const list = await as('sessions', 'list', '--user', 'alice');
    expect(rowOf(list.stdout, 'failed')).toEqual(
      expect.arrayContaining(['active', 'failed OUTPUT_VALIDATION']),
    );
  }, 60_000);
});
