import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { TWIN_CALL, twinApprovals } from '../helpers/twin-approvals.js';

/**
 * Issue 39: operating sub-agents from the built command line, in a child process, on a folder
 * where the lead's run waits on two children's calls that share one call id.
 */
let work: string;
let cli: BuiltCli;

/** A folder holding session `twins` of alice paused on its two children; their run ids. */
async function twinsFolder(name: string): Promise<{ db: string; alpha: string; beta: string }> {
  const db = join(work, name);
  const store = await LevelSessionStore.open({ path: db });
  try {
    const paused = await twinApprovals(store).lead.run('ship both', {
      sessionId: 'twins',
      userId: 'alice',
    });
    const runOf = (agent: string): string =>
      paused.interruptions.find((c) => c.agentPath?.at(-1) === agent)!.runId!;
    return { db, alpha: runOf('alpha'), beta: runOf('beta') };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-subs-'));
  cli = await buildCli();
}, 240_000);

afterAll(async () => {
  await cli?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

const as = (db: string, ...args: string[]) => runCli(cli, [...args, '--db', db, '--user', 'alice']);

describe('sub-agents from the command line', () => {
  it("sessions show lists both children's calls by id with run id and agent path", async () => {
    const { db, alpha, beta } = await twinsFolder('show');
    const show = await as(db, 'sessions', 'show', 'twins');
    expect(show.code).toBe(0);
    const rows = show.stdout.split('\n').filter((l) => l.startsWith(`${TWIN_CALL} `));
    expect(rows.map((r) => r.trim().split(/\s{2,}/))).toEqual([
      [TWIN_CALL, 'ship', '{"what":"alpha"}', alpha, 'lead > alpha', '-'],
      [TWIN_CALL, 'ship', '{"what":"beta"}', beta, 'lead > beta', '-'],
    ]);
    const json = JSON.parse((await as(db, 'sessions', 'show', 'twins', '--json')).stdout) as {
      pendingApprovals: { callId: string; runId: string; agentPath: string[] }[];
    };
    expect(json.pendingApprovals.map((c) => [c.callId, c.runId, c.agentPath])).toEqual([
      [TWIN_CALL, alpha, ['lead', 'alpha']],
      [TWIN_CALL, beta, ['lead', 'beta']],
    ]);
  });

  it('approve without --run says why it cannot choose; --run decides one child; the list then says waiting for resume', async () => {
    const { db, alpha, beta } = await twinsFolder('approve');
    const unsure = await as(db, 'approve', 'twins', TWIN_CALL);
    expect(unsure.code).toBe(4);
    expect(unsure.stderr).toContain('AMBIGUOUS_CALL');
    expect(unsure.stderr).toContain(alpha);
    expect(unsure.stderr).toContain(beta);
    expect(unsure.stderr).toContain('--run');
    const wrong = await as(db, 'approve', 'twins', TWIN_CALL, '--run', 'no-such-run');
    expect(wrong.code).not.toBe(0);
    const one = await as(db, 'approve', 'twins', TWIN_CALL, '--run', beta);
    expect(one).toMatchObject({ code: 0 });
    expect(one.stdout).toContain(`run ${beta}`);
    const left = await as(db, 'sessions', 'show', 'twins', '--json');
    expect(
      (JSON.parse(left.stdout) as { pendingApprovals: { runId: string }[] }).pendingApprovals,
    ).toMatchObject([{ runId: alpha }]);
    const other = await as(db, 'approve', 'twins', TWIN_CALL, '--run', alpha);
    expect(other).toMatchObject({ code: 0 });
    const list = await as(db, 'sessions', 'list');
    const row = list.stdout.split('\n').find((l) => l.startsWith('twins '));
    expect(row).toMatch(/awaitingApproval\s+waiting for resume\s*$/);
  });
});
