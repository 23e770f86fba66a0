import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, MessageAnsweredError, MessageQueuedError } from '../../src/index.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { contentText, toInputItems } from '../../src/items/item.js';
import { deferred, until } from '../helpers/async.js';
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

/** An agent on `store` whose model call for `hold` waits until the returned `release`. */
function heldAgent(store: LevelSessionStore) {
  const held = deferred();
  let holding = false;
  const calls: string[] = [];
  const model = new ScriptedModel(async (request) => {
    const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
    const last = users.at(-1);
    const text = last?.type === 'message' ? contentText(last.content) : '';
    calls.push(text);
    if (text === 'hold') {
      holding = true;
      await held.promise;
    }
    return { text: `reply: ${text}` };
  });
  const agent = new Agent({ name: 'echo', model, store, whileBusy: 'queue' });
  const holds = () => until(() => holding, 'the held model call');
  return { agent, calls, holds, release: () => held.resolve() };
}

describe("a queued message keeps its messageId (whileBusy: 'queue')", () => {
  it('runs under its id; the same id while it waits is not queued again; after it ran, MESSAGE_ANSWERED', async () => {
    const { store } = await open();
    const h = heldAgent(store);
    const running = h.agent.run('hold', key);
    await h.holds();
    const queued = h.agent.run('two', { ...key, messageId: 'q1' });
    await until(async () => (await store.queuedMessages(key)).length === 1, 'stored');
    const [waiting] = await store.queuedMessages(key);
    // The same id while it waits: refused, naming the waiting message; nothing new stored.
    const twin = h.agent.run('two', { ...key, messageId: 'q1' });
    await expect(twin).rejects.toBeInstanceOf(MessageQueuedError);
    await expect(twin).rejects.toMatchObject({
      code: 'MESSAGE_QUEUED',
      messageId: waiting!.id,
      again: true,
    });
    expect(await store.queuedMessages(key)).toHaveLength(1);
    h.release();
    await running;
    const answer = await queued;
    expect(answer.output).toBe('reply: two');
    // After it ran: answered, also while another run is busy (nothing stored).
    await expect(h.agent.run('two', { ...key, messageId: 'q1' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      runId: answer.id,
    });
    expect(h.calls).toEqual(['hold', 'two']);
    expect(texts(await store.readHistory(key))).toEqual([
      'hold',
      'reply: hold',
      'two',
      'reply: two',
    ]);
    expect(await store.queuedMessages(key)).toEqual([]);
  });

  it('an answered id sent while the session is busy is MESSAGE_ANSWERED at once, nothing queued', async () => {
    const { store } = await open();
    const h = heldAgent(store);
    const first = await h.agent.run('one', { ...key, messageId: 'q1' });
    const running = h.agent.run('hold', key);
    await h.holds();
    await expect(h.agent.run('one', { ...key, messageId: 'q1' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
      runId: first.id,
    });
    expect(await store.queuedMessages(key)).toEqual([]);
    h.release();
    await running;
    expect(h.calls).toEqual(['one', 'hold']);
  });

  it('a stored message taken by another runtime runs under its id; a twin stored beside it never runs; one without an id still runs', async () => {
    const { store } = await open();
    const h = heldAgent(store);
    await h.agent.run('zero', key);
    // As another process leaves them (its run ended as they came): two with one id, one without.
    const queue = (text: string, options: Record<string, unknown>) =>
      store.queueMessage({ key, kind: 'queue', items: toInputItems(text), options, at: 1 });
    await queue('one', { messageId: 'q2' });
    await queue('one again', { messageId: 'q2' });
    await queue('old', {});
    // A runtime that did not queue them takes them before its own message.
    const other = new Agent({ name: 'echo', model: echoModel(), store });
    await other.run('three', key);
    expect(texts(await store.readHistory(key))).toEqual([
      'zero',
      'reply: zero',
      'one',
      'reply: one',
      'old',
      'reply: old',
      'three',
      'reply: three',
    ]);
    expect(await store.queuedMessages(key)).toEqual([]);
    await expect(other.run('one', { ...key, messageId: 'q2' })).rejects.toMatchObject({
      code: 'MESSAGE_ANSWERED',
    });
  });
});
