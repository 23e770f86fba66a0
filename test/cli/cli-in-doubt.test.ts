import { afterEach, describe, expect, it } from 'vitest';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { TempStores } from '../helpers/temp-store.js';
import { crashWhilePaying, key, reopenedPayer } from '../helpers/in-doubt-payment.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Runs the command line in this process against folder `db`, as user alice. */
const cli = (db: string, ...args: string[]) =>
  cliInProcess([...args, '--db', db, '--user', key.userId]);

/** A folder whose session `pay` stands paused on call `c1` in doubt (the store closed). */
async function pausedFolder(): Promise<string> {
  const options = { onInterrupted: 'ask' } as const;
  const path = await crashWhilePaying(temps, options);
  const { agent, store } = await reopenedPayer(temps, path, options);
  const paused = await agent.resume(key.sessionId, { userId: key.userId });
  expect(paused.interruptionReason).toBe('in_doubt');
  await store.close();
  return path;
}

describe('agentstate in-doubt (list, resolve)', () => {
  it('has help with examples', async () => {
    const help = await cli('.', '--help');
    expect(help.stdout).toContain('  in-doubt list ');
    expect(help.stdout).toContain('  in-doubt resolve ');
    const own = await cli('.', 'in-doubt', 'resolve', '--help');
    expect(own.stdout).toMatch(/^agentstate in-doubt resolve/);
    expect(own.stdout).toMatch(/Examples:\n {2}agentstate in-doubt resolve /);
  });

  it("lists the calls in doubt; resolve records the operator's result, audited; the app's resume applies it without running the call", async () => {
    const db = await pausedFolder();
    const sessions = await cli(db, 'sessions', 'list');
    expect(sessions.stdout).toMatch(/^pay .*interrupted \(in_doubt\) .*1 in doubt/m);
    const listed = await cli(db, 'in-doubt', 'list', key.sessionId);
    expect(listed).toMatchObject({ code: 0 });
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    expect(header!.trim().split(/\s{2,}/)).toEqual(['CALL', 'TOOL', 'RUN', 'AGENT', 'RECONCILE']);
    expect(row!.trim().split(/\s{2,}/)).toEqual([
      'c1',
      'pay',
      expect.stringMatching(/^\S+$/),
      'payer',
      '-',
    ]);
    expect(rest).toEqual([]);
    const asJson = await cli(db, 'in-doubt', 'list', key.sessionId, '--json');
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      callsInDoubt: [{ callId: 'c1', toolName: 'pay', arguments: { amount: 5 } }],
    });

    // Bad input: a usage error or a typed one (exit 3: not found), nothing recorded.
    expect((await cli(db, 'in-doubt', 'resolve', key.sessionId, 'c1')).code).toBe(2);
    expect(
      (await cli(db, 'in-doubt', 'resolve', key.sessionId, 'c1', '--retry', '--fail')).code,
    ).toBe(2);
    expect(
      (await cli(db, 'in-doubt', 'resolve', key.sessionId, 'c1', '--result', '{nope')).code,
    ).toBe(2);
    const unknown = await cli(db, 'in-doubt', 'resolve', key.sessionId, 'c9', '--fail');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/No tool call "c9" is in doubt .*\[NOT_IN_DOUBT\]/);

    const resolved = await cli(
      db,
      'in-doubt',
      'resolve',
      key.sessionId,
      'c1',
      '--result',
      '"charged by hand"',
    );
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toMatch(/^resolved call c1 of pay \(result\): recorded/);
    // Recorded, not applied: the run still stands paused (held) until the app resumes it.
    const after = await cli(db, 'sessions', 'show', key.sessionId, '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ run: { state: 'interrupted', held: true } });
    expect((await cli(db, 'in-doubt', 'list', key.sessionId)).stdout).toBe(
      `no call of ${key.sessionId} is in doubt\n`,
    );

    const { agent, store, charges, entry } = await reopenedPayer(temps, db, {
      onInterrupted: 'ask',
    });
    const result = await agent.resume(key.sessionId, { userId: key.userId });
    expect(result.output).toBe('ok: charged by hand');
    expect(charges).toEqual([]);
    expect((await entry(result.id))?.output).toMatchObject({
      inDoubt: { resolution: 'recorded', operator: { action: 'result' } },
    });
    const audit = await store.readAudit({ userId: key.userId, kind: 'in_doubt' });
    expect(audit.entries).toEqual([expect.objectContaining({ callId: 'c1', via: 'cli' })]);
  });
});
