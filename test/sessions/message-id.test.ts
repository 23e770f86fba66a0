import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, MessageAnsweredError } from '../../src/index.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { echoModel, texts } from '../helpers/session-fixtures.js';
import { tempFolder } from '../helpers/temp-store.js';

const folders: string[] = [];
const stores: LevelSessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
});

async function open(path?: string) {
  let at = path;
  if (at === undefined) {
    const folder = await tempFolder();
    folders.push(folder);
    at = join(folder, 'db');
  }
  const store = await LevelSessionStore.open({ path: at });
  stores.push(store);
  return { store, path: at };
}

const agentOver = (store: LevelSessionStore) =>
  new Agent({ name: 'echo', model: echoModel(), store });
const key = { sessionId: 's', userId: 'u' };

describe('RunOptions.messageId: a session answers a message id once (issue 40)', () => {
  it('the same id again is MessageAnsweredError naming the run, and stores nothing, also after a restart', async () => {
    const { store, path } = await open();
    const first = await agentOver(store).run('hi', { ...key, messageId: 'm1' });
    const before = await store.load(key);
    const again = agentOver(store).run('hi', { ...key, messageId: 'm1' });
    await expect(again).rejects.toBeInstanceOf(MessageAnsweredError);
    await expect(again).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      messageId: 'm1',
      runId: first.id,
      running: false,
    });
    expect((await store.load(key)).version).toBe(before.version);
    await store.close();
    const reopened = (await open(path)).store;
    await expect(agentOver(reopened).run('hi', { ...key, messageId: 'm1' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      runId: first.id,
    });
    await agentOver(reopened).run('again', { ...key, messageId: 'm2' });
    expect(texts(await reopened.readHistory(key))).toEqual([
      'hi',
      'reply: hi',
      'again',
      'reply: again',
    ]);
  });

  it('keeps the latest 64 ids: the session record does not grow with its history', async () => {
    const { store } = await open();
    const agent = agentOver(store);
    for (let i = 0; i < 70; i++) await agent.run(`m${i}`, { ...key, messageId: `m${i}` });
    const context = (await store.load(key)).snapshot as { context: { answered: unknown[] } };
    expect(context.context.answered).toHaveLength(64);
    await expect(agent.run('m69', { ...key, messageId: 'm69' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
    });
    await agent.run('m0', { ...key, messageId: 'm0' }); // forgotten: a new turn
  });

  it('a bad messageId is refused before anything is stored', async () => {
    const { store } = await open();
    const agent = agentOver(store);
    // Refused at the call (thrown or rejected alike).
    const run = (messageId: string) =>
      Promise.resolve().then(() => agent.run('hi', { ...key, messageId }));
    await expect(run('')).rejects.toThrow(TypeError);
    await expect(run('x'.repeat(257))).rejects.toMatchObject({ code: 'ID_TOO_LONG' });
    expect((await store.list({ userId: 'u' })).sessions).toEqual([]);
  });
});
