import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  InvalidSessionRecordError,
  SessionConflictError,
  InvalidSessionTransitionError,
  SessionRuntime,
  deleteSession,
  sendMessage,
  writeMetadata,
} from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { listIndexKey, recordKey, sessionPart } from '../../src/persistence/session-keys.js';
import { encodeStored, readStored } from '../../src/persistence/session-schemas.js';
import type {
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../../src/persistence/session-store.js';
import { alice, bob, echoModel, echoed, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** One `loadForUpdate` of an action: was a cached record handed in, and was it served? */
interface Load {
  session: string;
  known: boolean;
  served: boolean;
}

/** `store`, with every `loadForUpdate` noted (a fake passed in, forwarding to the store). */
function spied(store: KvSessionStore): { store: SessionStore; loads: Load[] } {
  const loads: Load[] = [];
  const proxy = new Proxy(store, {
    get(target, name) {
      if (name === 'loadForUpdate') {
        return async (key: SessionKey, known?: SessionRecord) => {
          const loaded = await target.loadForUpdate(key, known);
          loads.push({
            session: sessionPart(key),
            known: known !== undefined,
            served: known !== undefined && loaded.record === known,
          });
          return loaded;
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return { store: proxy, loads };
}

const stores: [string, () => Promise<KvSessionStore>][] = [
  ['memory', async () => new MemorySessionStore()],
  ['LevelDB', async () => (await temps.open()).store],
];

const served = (loads: Load[]) => loads.map((l) => (l.served ? 'served' : l.known ? 'read' : '-'));

describe.each(stores)('the session cache (%s store)', (_name, open) => {
  it('serves a session this runtime just used, and reads one another runtime moved on', async () => {
    const spy = spied(await open());
    const agent = new Agent({ name: 'a', model: echoModel() });
    const mine = new SessionRuntime({ store: spy.store, agent });
    const other = new SessionRuntime({ store: spy.store, agent });
    const key = alice('chat');
    await mine.execute(key, sendMessage('one'));
    await mine.execute(key, sendMessage('two'));
    expect(served(spy.loads)).toEqual(['served']); // the first message created the session
    await other.execute(key, sendMessage('three'));
    await mine.execute(key, sendMessage('four'));
    expect(served(spy.loads)).toEqual(['served', '-', 'read']);
    const history = await spy.store.readHistory(key);
    expect(texts(history)).toEqual(echoed('one', 'two', 'three', 'four'));
    expect((await spy.store.load(key)).version).toBe(1 + 4 * 2);
  });

  it('keeps the SessionConflictError of a lost version check, then reads the winner afresh', async () => {
    const spy = spied(await open());
    const agent = new Agent({ name: 'a', model: echoModel() });
    const first = new SessionRuntime({ store: spy.store, agent });
    const second = new SessionRuntime({ store: spy.store, agent });
    const key = alice('meta');
    await first.execute(key, sendMessage('hello'));
    await second.execute(key, writeMetadata({ writer: 'second' }));
    await first.execute(key, writeMetadata({ writer: 'first' }));
    const version = (await spy.store.load(key)).version;
    // Both hold the session at this version now; exactly one of two writes from it wins.
    const results = await Promise.allSettled([
      first.execute(key, writeMetadata({ round: 'first' })),
      second.execute(key, writeMetadata({ round: 'second' })),
    ]);
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(SessionConflictError);
    expect(lost[0]!.reason).toMatchObject({ expectedVersion: version });
    const loser = results[0].status === 'rejected' ? first : second;
    spy.loads.length = 0;
    await loser.execute(key, writeMetadata({ after: 'conflict' }));
    expect(served(spy.loads)).toEqual(['-']); // dropped with the failed action
    const stored = (await spy.store.load(key)) as {
      version: number;
      snapshot: { context: { config: { metadata: unknown } } };
    };
    expect(stored.version).toBe(version + 2);
    const winner = loser === first ? 'second' : 'first';
    expect(stored.snapshot.context.config.metadata).toEqual({
      writer: 'first',
      round: winner,
      after: 'conflict',
    });
  });

  it("never serves one user's session to another with the same session id", async () => {
    const spy = spied(await open());
    const agent = new Agent({ name: 'a', model: echoModel() });
    const runtime = new SessionRuntime({ store: spy.store, agent });
    await runtime.execute(alice('same'), sendMessage('for alice'));
    await runtime.execute(bob('same'), sendMessage('for bob'));
    await runtime.execute(bob('same'), sendMessage('bob again'));
    expect(spy.loads.map((l) => [l.session, served([l])[0]])).toEqual([
      [sessionPart(bob('same')), 'served'],
    ]);
    expect(texts(await spy.store.readHistory(bob('same')))).toEqual(echoed('for bob', 'bob again'));
  });

  it('keeps at most `cachedSessions` sessions, the least recently used dropped first', async () => {
    const spy = spied(await open());
    const agent = new Agent({ name: 'a', model: echoModel(), cachedSessions: 2 });
    const runtime = new SessionRuntime({ store: spy.store, agent });
    for (const id of ['s1', 's2', 's3']) await runtime.execute(alice(id), sendMessage(id));
    spy.loads.length = 0;
    await runtime.execute(alice('s3'), sendMessage('again'));
    await runtime.execute(alice('s1'), sendMessage('again'));
    expect(served(spy.loads)).toEqual(['served', '-']);
    const one = spied(await open());
    const single = new SessionRuntime({ store: one.store, agent, cachedSessions: 1 });
    for (const id of ['s1', 's1', 's2', 's1']) await single.execute(alice(id), sendMessage(id));
    expect(served(one.loads)).toEqual(['served', '-']);
  });

  it('drops a deleted session, and a damaged one is the typed error it always was', async () => {
    const store = await open();
    const spy = spied(store);
    const agent = new Agent({ name: 'a', model: echoModel() });
    const runtime = new SessionRuntime({ store: spy.store, agent });
    await runtime.execute(alice('gone'), sendMessage('hi'));
    await runtime.execute(alice('gone'), deleteSession());
    await expect(runtime.execute(alice('gone'), writeMetadata({ a: 1 }))).rejects.toBeInstanceOf(
      InvalidSessionTransitionError,
    );
    expect(served(spy.loads)).toEqual(['served', '-']);
    await runtime.execute(alice('damaged'), sendMessage('hi'));
    const key = recordKey(alice('damaged'));
    await store.backend.write([{ type: 'put', key, value: '{not json' }]);
    await expect(runtime.execute(alice('damaged'), sendMessage('again'))).rejects.toMatchObject({
      name: InvalidSessionRecordError.name,
      key,
    });
    const [raw] = await Promise.all([store.backend.get(key)]);
    expect(raw).toBe('{not json'); // nothing was overwritten
  });

  it('serves a record only with the listing entry the store wrote with it, else checks it', async () => {
    const store = await open();
    const spy = spied(store);
    const runtime = new SessionRuntime({
      store: spy.store,
      agent: new Agent({ name: 'a', model: echoModel() }),
    });
    await runtime.execute(alice('listed'), sendMessage('one'));
    await runtime.execute(alice('listed'), sendMessage('two'));
    expect(served(spy.loads)).toEqual(['served']);
    // A listing entry sealed right but disagreeing with the record (written behind the store).
    const key = listIndexKey(alice('listed'));
    const info = readStored(key, (await store.backend.get(key))!).value as { updatedAt: number };
    const changed = encodeStored(key, { ...info, updatedAt: info.updatedAt + 1 });
    await store.backend.write([{ type: 'put', key, value: changed }]);
    await expect(runtime.execute(alice('listed'), sendMessage('three'))).rejects.toMatchObject({
      name: InvalidSessionRecordError.name,
      key,
    });
    expect(await store.backend.get(key)).toBe(changed); // nothing was overwritten
  });
});
