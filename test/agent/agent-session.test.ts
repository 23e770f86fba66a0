import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, MessageAnsweredError } from '../../src/index.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { echoModel, echoed, texts } from '../helpers/session-fixtures.js';
import { tempFolder } from '../helpers/temp-store.js';

const folders: string[] = [];
const stores: LevelSessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
});

async function open(): Promise<LevelSessionStore> {
  const folder = await tempFolder();
  folders.push(folder);
  const store = await LevelSessionStore.open({ path: join(folder, 'db') });
  stores.push(store);
  return store;
}

const key = { sessionId: 's', userId: 'u' };

describe('AgentSession: run and stream take messageId, answered once', () => {
  it('the same id twice through session.run is MessageAnsweredError naming the run, and stores nothing', async () => {
    const store = await open();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const session = await agent.createSession(key);
    const first = await session.run('hi', { messageId: 'm1' });
    const before = await store.load(key);
    const again = session.run('hi', { messageId: 'm1' });
    await expect(again).rejects.toBeInstanceOf(MessageAnsweredError);
    await expect(again).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      messageId: 'm1',
      runId: first.id,
    });
    // The stream refuses it alike.
    const streamed = session.stream('hi', { messageId: 'm1' });
    await expect(streamed.result).rejects.toMatchObject({ code: 'MESSAGE_ANSWERED' });
    expect((await store.load(key)).version).toBe(before.version);
    expect(texts(await store.readHistory(key))).toEqual(echoed('hi'));
    await session.close();
  });

  it('an id answered by agent.run is answered for session.run on the same session, and back', async () => {
    const store = await open();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const first = await agent.run('hi', { ...key, messageId: 'm1' });
    const session = await agent.createSession(key);
    await expect(session.run('hi', { messageId: 'm1' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      runId: first.id,
    });
    const second = await session.run('more', { messageId: 'm2' });
    await expect(agent.run('more', { ...key, messageId: 'm2' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      runId: second.id,
    });
    expect(texts(await store.readHistory(key))).toEqual(echoed('hi', 'more'));
    await session.close();
  });

  it('a bad messageId is a TypeError at the call; resume takes none', async () => {
    const store = await open();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const session = await agent.createSession(key);
    expect(() => session.run('hi', { messageId: '' })).toThrow(TypeError);
    expect(() =>
      session.resume(undefined, { messageId: 'm1' } as Parameters<typeof session.resume>[1]),
    ).toThrow(/messageId/);
    await session.close();
  });
});
