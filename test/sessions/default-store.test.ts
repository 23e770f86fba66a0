import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, closeDefaultStores } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { tempFolder } from '../helpers/temp-store.js';

/**
 * The default store is process-wide on purpose (see `default-store.ts`): agents made
 * independently, with no store, share one LevelDB handle per folder (a second handle would
 * fail on LevelDB's folder lock), and `closeDefaultStores` releases it.
 */

const saved = process.env.AGENTSTATE_DIR;
const folders: string[] = [];
afterEach(async () => {
  await closeDefaultStores();
  if (saved === undefined) delete process.env.AGENTSTATE_DIR;
  else process.env.AGENTSTATE_DIR = saved;
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});

const echo = (name: string) =>
  new Agent({ name, model: new ScriptedModel(() => ({ text: `${name} answers` })) });

describe('the default store', () => {
  it('is one handle per folder for agents made independently, released by closeDefaultStores', async () => {
    const dir = await tempFolder();
    folders.push(dir);
    process.env.AGENTSTATE_DIR = dir;
    const key = { sessionId: 's1', userId: 'alice' };
    expect((await echo('first').run('hi', key)).output).toBe('first answers');
    // Another agent in this process reaches the same folder: no lock error, the same session.
    const second = await echo('second').run('again', key);
    expect(second.output).toBe('second answers');

    // While held, a second handle on the folder fails on LevelDB's lock; once closed, it opens.
    await expect(LevelSessionStore.open({ path: dir })).rejects.toThrow();
    await closeDefaultStores();
    const reopened = await LevelSessionStore.open({ path: dir });
    try {
      const record = await reopened.load(key);
      // Both agents' messages went to one session: created by the first, saved on by both.
      expect(record.version).toBeGreaterThan(2);
      expect(JSON.stringify(await reopened.readHistory(key, 0, 4))).toContain('first answers');
    } finally {
      await reopened.close();
    }
  });
});
