import { afterEach, describe, expect, it } from 'vitest';
import { Agent, SessionRuntime, sendMessage, writeMetadata } from '../../../src/index.js';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { alice, echoModel, echoed, texts } from '../../helpers/session-fixtures.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Two stores on one schema: what two processes sharing one database see. */
async function twoProcesses() {
  const first = await pgt.freshStore('cache');
  cleanups.push(first.cleanup);
  const second = await PostgresSessionStore.open({ pool: pgt.pool, schema: first.schema });
  cleanups.unshift(() => second.close());
  const agent = new Agent({ name: 'a', model: echoModel() });
  return {
    mine: new SessionRuntime({ store: first.store, agent }),
    other: new SessionRuntime({ store: second, agent }),
    store: first.store,
  };
}

describe('the session cache with PostgreSQL shared by processes', () => {
  it("reads another process's message, never overwriting it", async () => {
    const { mine, other, store } = await twoProcesses();
    const key = alice('shared');
    await mine.execute(key, sendMessage('one'));
    await mine.execute(key, sendMessage('two'));
    await other.execute(key, sendMessage('three'));
    await mine.execute(key, sendMessage('four'));
    expect(texts(await store.readHistory(key))).toEqual(echoed('one', 'two', 'three', 'four'));
    expect((await store.load(key)).version).toBe(1 + 4 * 2);
  });

  it("keeps another process's settings when this one goes on with the session", async () => {
    const { mine, other, store } = await twoProcesses();
    const key = alice('settings');
    await mine.execute(key, sendMessage('hello'));
    await other.execute(key, writeMetadata({ by: 'other' }));
    await mine.execute(key, writeMetadata({ also: 'mine' }));
    await mine.execute(key, sendMessage('again'));
    const stored = (await store.load(key)) as {
      version: number;
      snapshot: { context: { config: { metadata: unknown } } };
    };
    expect(stored.snapshot.context.config.metadata).toEqual({ by: 'other', also: 'mine' });
    expect(stored.version).toBe(1 + 2 + 1 + 1 + 2);
  });
});
