import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { startInspector } from '../../src/inspect.js';
import { finished, runScript, spawnScript } from '../helpers/child-process.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * A poison run (issue 30): a tool that SIGKILLs its own process every time it runs. Each new
 * process recovers the run (`runtime.recover()`, as on a start) and dies in the same tool, until
 * `maxRecoveries` restores have found it in flight: the next process stops the run `failed`
 * with `RecoveryExhaustedError` naming the tool call instead of running it again, and lives.
 * Every other session's records stay byte for byte as they were.
 */
const CHILD = 'test/helpers/poison-child.ts';
const MAX_RECOVERIES = 2;
/** The owner part of every key of the poison session's user (see session-keys.ts). */
const POISON_OWNER = 'u:mallory';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Every raw key and value of the LevelDB folder, as bytes (hex). */
async function rawEntries(dbDir: string): Promise<Map<string, string>> {
  const db = new Level<Buffer, Buffer>(dbDir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    const entries = new Map<string, string>();
    for await (const [key, value] of db.iterator()) {
      entries.set(key.toString('hex'), value.toString('hex'));
    }
    return entries;
  } finally {
    await db.close();
  }
}

const isPoisons = (hexKey: string): boolean =>
  Buffer.from(hexKey, 'hex').toString('utf8').split('!').includes(POISON_OWNER);

function othersOf(entries: Map<string, string>): [string, string][] {
  return [...entries].filter(([key]) => !isPoisons(key));
}

const lines = async (file: string): Promise<string[]> =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('a poison run stops after maxRecoveries', () => {
  it('each process recovers it and dies, until the run ends failed with RecoveryExhaustedError; nothing else changes', async () => {
    const folder = await temps.folder();
    const dbDir = join(folder, 'db');
    const effects = join(folder, 'effects');
    const hook = join(folder, 'hook');
    const env = { POISON_MAX_RECOVERIES: String(MAX_RECOVERIES) };
    const child = async (mode: string) => {
      const process = await spawnScript(CHILD, [dbDir, effects, hook, mode], env);
      return { ...(await finished(process)), pid: process.pid };
    };

    const seeded = await child('seed');
    expect(seeded.code, seeded.stderr).toBe(0);
    const before = await rawEntries(dbDir);
    expect(othersOf(before).length).toBeGreaterThan(6); // records, listings, history, journals

    const started = await child('start');
    expect(started.signal, started.stderr).toBe('SIGKILL');
    // Each restore runs the tool again and dies, maxRecoveries times.
    for (let restore = 1; restore <= MAX_RECOVERIES; restore++) {
      const recovering = await child('recover');
      expect(recovering.signal, `restore ${restore}: ${recovering.stderr}`).toBe('SIGKILL');
    }
    const last = await child('recover');
    expect(last.code, last.stderr).toBe(0);
    const result = JSON.parse(
      last.stdout
        .split('\n')
        .find((l) => l.startsWith('result '))!
        .slice('result '.length),
    ) as { key: unknown; error?: Record<string, unknown> }[];
    const failedStep = { kind: 'tool', name: 'detonate', callId: 'boom-1', step: 1 };
    expect(result).toEqual([
      {
        key: { sessionId: 'poison', userId: 'mallory' },
        error: expect.objectContaining({
          name: 'RecoveryExhaustedError',
          code: 'RECOVERY_EXHAUSTED',
          failedStep,
          maxRecoveries: MAX_RECOVERIES,
        }) as unknown,
      },
    ]);

    // The tool ran once per process that died (the first and each restore), never after.
    const ran = await lines(effects);
    expect(ran).toHaveLength(1 + MAX_RECOVERIES);
    expect(new Set(ran.map((l) => l.split(' ')[1])).size).toBe(ran.length);
    expect(ran.every((l) => l.startsWith('boom-1 '))).toBe(true);
    // The hook fired once, in the process that stopped the run.
    const hooked = await lines(hook);
    expect(hooked).toEqual([`RECOVERY_EXHAUSTED ${JSON.stringify(failedStep)} ${last.pid}`]);

    // A further process finds nothing to recover: the run stays failed, the tool unrun.
    const after = await child('recover');
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('result []');
    expect(await lines(effects)).toHaveLength(1 + MAX_RECOVERIES);
    expect(await lines(hook)).toHaveLength(1);

    // Every other session's records are byte-identical; the poison session's changed.
    const end = await rawEntries(dbDir);
    expect(othersOf(end)).toEqual(othersOf(before));
    expect([...end.keys()].filter(isPoisons).length).toBeGreaterThan(0);

    // The command line and the inspector show the run failed, and which step stopped it.
    const cli = (...args: string[]) =>
      runScript('src/cli.ts', [...args, '--user', 'mallory', '--db', dbDir]);
    const listed = await cli('sessions', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^poison\s.*failed RECOVERY_EXHAUSTED/m);
    const shown = await cli('sessions', 'show', 'poison');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      'RecoveryExhaustedError: The tool step "detonate" (call boom-1) at step 1',
    );
    const store = await LevelSessionStore.open({ path: dbDir });
    temps.defer(() => store.close());
    const agent = new Agent({ name: 'poisoned', model: new ScriptedModel([]) });
    const inspector = await startInspector({ runtime: agent.runtimeFor(store), allUsers: true });
    temps.defer(() => inspector.close());
    const detail = (await inspectorClient(inspector).get('/api/sessions/poison?user=mallory'))
      .json as { session: { runStatus: unknown } };
    expect(detail.session.runStatus).toMatchObject({
      status: 'failed',
      error: { code: 'RECOVERY_EXHAUSTED', failedStep, maxRecoveries: MAX_RECOVERIES },
    });
  });
});
