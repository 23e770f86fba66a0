import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../../src/agent/agent.js';
import { ScriptedModel } from '../../../src/models/scripted-model.js';
import type { ModelRequest } from '../../../src/models/model.js';
import { contentText, toInputItems } from '../../../src/items/item.js';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { commitOn, msg, newSession } from '../../../src/store-contract/contract-fixtures.js';
import { deferred, until } from '../../helpers/async.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/**
 * The message inbox and the session watches on PostgreSQL, in the statements a message already
 * makes: the grant of a run's lease tells whether messages are queued (a new one lets them go
 * first), its release whether any came meanwhile (taken after the run), so a message with an
 * empty inbox reads it not at all; and a save NOTIFYs only a session someone watches.
 */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const key = { sessionId: 's1', userId: 'alice' };

/** The text of the last user message a request holds. */
function lastUser(request: ModelRequest): string {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users.at(-1);
  return last && last.type === 'message' ? contentText(last.content) : '';
}

/** A store in a fresh schema, a second store object on it (another process's), an agent. */
async function setup() {
  const { store, schema, cleanup } = await pgt.freshStore('inbox');
  cleanups.push(cleanup);
  const elsewhere = await PostgresSessionStore.open({ pool: pgt.pool, schema });
  cleanups.push(() => elsewhere.close());
  const hold = deferred<void>();
  let held = false;
  const asked: string[] = [];
  const model = new ScriptedModel(async (request) => {
    const text = lastUser(request);
    asked.push(text);
    if (text === 'hold' && !held) {
      held = true;
      await hold.promise;
    }
    return { text: `answer to ${text}` };
  });
  const agent = new Agent({ name: 'a', model, store });
  const reads = vi.spyOn(store, 'queuedMessages');
  const texts = async (): Promise<string[]> =>
    (await store.readHistory(key)).map((i) =>
      i.type === 'message' ? contentText(i.content) : i.type,
    );
  return { store, schema, elsewhere, agent, hold, held: () => held, asked, reads, texts };
}

/** Queues `text` for the session from another store object (as another process would). */
const queue = (store: PostgresSessionStore, text: string) =>
  store.queueMessage({ key, kind: 'queue', items: toInputItems(text), options: {}, at: 1 });

describe('the message inbox on PostgreSQL, told by the lease', () => {
  it('a message reads no inbox when none is queued, and lets those queued before it go first', async () => {
    const s = await setup();
    await s.agent.run('zero', key);
    await s.agent.run('after', key);
    // Nothing was queued: the grant and the release of each run's lease said so.
    expect(s.reads).not.toHaveBeenCalled();
    // Left by a process whose run ended as they came.
    await queue(s.elsewhere, 'one');
    await queue(s.elsewhere, 'two');
    const three = await s.agent.run('three', key);
    expect(three.output).toBe('answer to three');
    expect(await s.texts()).toEqual([
      ...['zero', 'answer to zero', 'after', 'answer to after'],
      ...['one', 'answer to one', 'two', 'answer to two', 'three', 'answer to three'],
    ]);
    expect(s.asked).toEqual(['zero', 'after', 'one', 'two', 'three']);
    expect(await s.store.queuedMessages(key)).toEqual([]);
  });

  it('a message another process queues while the run executes is answered after it, once', async () => {
    const s = await setup();
    const running = s.agent.run('hold', key);
    await until(s.held, 'the model call');
    await queue(s.elsewhere, 'late');
    s.hold.resolve();
    expect((await running).output).toBe('answer to hold');
    // Nobody here waits for it: the release of the run's lease told it was queued.
    await until(async () => (await s.texts()).length === 4, "the late message's run");
    await until(async () => (await s.elsewhere.queuedMessages(key)).length === 0, 'inbox empty');
    expect(await s.texts()).toEqual(['hold', 'answer to hold', 'late', 'answer to late']);
    expect(s.asked).toEqual(['hold', 'late']);
    // The inbox empty again: the next message reads it not at all.
    const before = s.reads.mock.calls.length;
    await s.agent.run('next', key);
    expect(s.reads.mock.calls.length).toBe(before);
  });
});

describe('session watches on PostgreSQL', () => {
  it('a save NOTIFYs only while its session is watched', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('notify');
    cleanups.push(cleanup);
    const id = createHash('sha1').update(schema).digest('hex').slice(0, 24);
    const channel = `agentstate_${id}_saves`;
    const digest = (sessionId: string) => createHash('md5').update(`u:alice!${sessionId}`);
    const listener = new pg.Client({ connectionString: pgt.url });
    await listener.connect();
    cleanups.push(() => listener.end());
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query(`LISTEN "${channel}"`);
    let [s, t] = await Promise.all([
      store.create(newSession('s', 'alice')),
      store.create(newSession('t', 'alice')),
    ]);
    const sDigest = digest('s').digest('hex');
    const tDigest = digest('t').digest('hex');
    const stopS = await store.watchSession({ sessionId: 's', userId: 'alice' }, noop, noop);
    // Heard in commit order: t's save (unwatched), had it notified, comes before s's.
    t = await store.save(commitOn(t, [msg('t1')]));
    s = await store.save(commitOn(s, [msg('s1')]));
    await until(() => heard.length >= 1, "s's save heard");
    expect(heard).toEqual([sDigest]);
    await stopS();
    const stopT = await store.watchSession({ sessionId: 't', userId: 'alice' }, noop, noop);
    s = await store.save(commitOn(s, [msg('s2')]));
    t = await store.save(commitOn(t, [msg('t2')]));
    await until(() => heard.length >= 2, "t's save heard");
    expect(heard).toEqual([sDigest, tDigest]);
    await stopT();
    // A session not stored cannot be watched (its saves could not be counted).
    await expect(
      store.watchSession({ sessionId: 'nope', userId: 'alice' }, noop, noop),
    ).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(s.version + t.version).toBe(6);
  });
});

const noop = (): void => undefined;
