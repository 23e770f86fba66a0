import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, StoreLockedError } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing.js';
import { kill, spawnScript, waitForLine } from '../../helpers/child-process.js';
import { TempStores } from '../../helpers/temp-store.js';

/** A LevelDB folder held by another process is a typed `STORE_LOCKED` error (issue 8, point 7). */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('a locked LevelDB folder', () => {
  it('raises StoreLockedError naming the folder, from open and from a lazily opened store', async () => {
    const folder = await temps.folder();
    const path = join(folder, 'db');
    const holder = await spawnScript('test/helpers/hold-store.ts', [path]);
    try {
      await waitForLine(holder, 'holding');
      const opening = LevelSessionStore.open({ path });
      await expect(opening).rejects.toBeInstanceOf(StoreLockedError);
      await expect(opening).rejects.toMatchObject({ code: 'STORE_LOCKED', path });
      await expect(opening).rejects.toThrow(/one process at a time/);

      // A store constructed without open() reports the same error at its first use.
      const lazy = new LevelSessionStore({ path });
      const agent = new Agent({
        name: 'a',
        model: new ScriptedModel([{ text: 'hi' }]),
        store: lazy,
      });
      await expect(agent.run('hello', { sessionId: 's' })).rejects.toMatchObject({
        code: 'STORE_LOCKED',
        path,
      });
      await lazy.close().catch(() => undefined);
    } finally {
      await kill(holder, 'SIGTERM');
    }
    // Once the other process let go, the folder opens.
    const store = await LevelSessionStore.open({ path });
    await store.close();
  });
});
