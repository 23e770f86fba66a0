import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  SessionConflictError,
  SessionRuntime,
  SessionSaveFailedError,
  sendMessage,
  writeMetadata,
} from '../../src/index.js';
import type { KvOp } from '../../src/persistence/kv/backends/kv-backend.js';
import { ScriptedModel } from '../../src/testing.js';
import { alice, deferred, dumpBackend, echoModel, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

function outcome(results: PromiseSettledResult<unknown>[]) {
  const fulfilled = results.filter((r) => r.status === 'fulfilled');
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  return { fulfilled: fulfilled.length, rejected: rejected.map((r) => r.reason as unknown) };
}

describe('two runtimes saving the same session', () => {
  it('writeMetadata from the same version: exactly one success and one SessionConflictError', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'assistant', model: echoModel() });
    const first = new SessionRuntime({ store, agent });
    const second = new SessionRuntime({ store, agent });
    // repeated on fresh sessions to show the outcome is deterministic, not a lucky interleaving
    for (let i = 0; i < 10; i += 1) {
      const key = alice(`s${i}`);
      await first.execute(key, sendMessage('hello'));
      const before = await store.load(key);
      const loaded: number[] = [];
      first.on('SessionLoaded', (e) => loaded.push(e.version));
      second.on('SessionLoaded', (e) => loaded.push(e.version));
      const results = await Promise.allSettled([
        first.execute(key, writeMetadata({ writer: 'first' })),
        second.execute(key, writeMetadata({ writer: 'second' })),
      ]);
      expect(loaded).toEqual([before.version, before.version]);
      const { fulfilled, rejected } = outcome(results);
      expect(fulfilled).toBe(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]).toBeInstanceOf(SessionConflictError);
      expect(rejected[0]).toMatchObject({
        code: 'SESSION_CONFLICT',
        expectedVersion: before.version,
      });
      const after = await store.load(key);
      expect(after.version).toBe(before.version + 1);
      const winner = results[0].status === 'fulfilled' ? 'first' : 'second';
      expect(
        (after.snapshot as { context: { config: { metadata: unknown } } }).context.config.metadata,
      ).toEqual({
        writer: winner,
      });
    }
  });

  // In every durability mode: each save is one versioned batch, whenever it happens.
  it.each(['step', 'tools', 'run'] as const)(
    "'%s' durability: two messages whose models wait until both sessions are loaded: one run wins, the other conflicts",
    async (durability) => {
      const { store } = await temps.open();
      const release = deferred();
      const model = new ScriptedModel(async (request) => {
        await release.promise;
        return { text: `answer ${request.items.length}` };
      });
      const agent = new Agent({ name: 'assistant', model, durability });
      // Without leases (as with a store that keeps none) the version check alone decides; with
      // them the second run is refused before loading (test/persistence/session-leases.test.ts).
      const first = new SessionRuntime({ store, agent, lease: false });
      const second = new SessionRuntime({ store, agent, lease: false });
      const key = alice('chat');
      await new SessionRuntime({
        store,
        agent: new Agent({ name: 'a', model: echoModel() }),
      }).execute(key, sendMessage('start'));
      const before = await store.load(key);

      let loads = 0;
      const bothLoaded = deferred();
      for (const runtime of [first, second]) {
        runtime.on('SessionLoaded', () => {
          loads += 1;
          if (loads === 2) bothLoaded.resolve();
        });
      }
      const running = Promise.allSettled([
        first.execute(key, sendMessage('from the first worker')),
        second.execute(key, sendMessage('from the second worker')),
      ]);
      await bothLoaded.promise;
      release.resolve();
      const results = await running;

      const { fulfilled, rejected } = outcome(results);
      expect(fulfilled).toBe(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]).toBeInstanceOf(SessionConflictError);
      const won = results.findIndex((r) => r.status === 'fulfilled');
      const winner = won === 0 ? 'from the first worker' : 'from the second worker';
      const loser = won === 0 ? 'from the second worker' : 'from the first worker';
      const history = texts(await store.readHistory(key));
      expect(history).toEqual(['start', 'reply: start', winner, 'answer 3']);
      expect(history).not.toContain(loser);
      const after = await store.load(key);
      expect(after.version).toBeGreaterThan(before.version);
      expect(after.historyLength).toBe(4);
    },
  );
});

describe('a save that fails half-way', () => {
  it('rejects the action, emits SessionSaveFailed and leaves the store exactly as before', async () => {
    let failOn: ((op: KvOp) => boolean) | undefined;
    const { store } = await temps.open({
      onBatchOp: (_index, op) => {
        if (failOn?.(op)) throw new Error('disk full (injected)');
      },
    });
    const agent = new Agent({ name: 'assistant', model: echoModel() });
    const runtime = new SessionRuntime({ store, agent });
    const key = alice('chat');
    await runtime.execute(key, sendMessage('hello'));
    const failures: unknown[] = [];
    runtime.on('SessionSaveFailed', (event) => failures.push(event.error));

    const snapshotOf = async () => ({
      record: await store.load(key),
      history: await store.readHistory(key),
      usage: await store.userUsage('alice'),
      all: await dumpBackend(store),
    });

    // history keys come after the record and index puts in the batch: fail at the first one
    const before = await snapshotOf();
    failOn = (op) => op.key.startsWith('h!');
    await expect(runtime.execute(key, sendMessage('this turn is lost'))).rejects.toBeInstanceOf(
      SessionSaveFailedError,
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ code: 'SESSION_SAVE_FAILED' });
    expect(await snapshotOf()).toEqual(before);

    // a metadata change fails on its list-index put (the second op of the batch)
    failOn = (op) => op.key.startsWith('l!');
    await expect(runtime.execute(key, writeMetadata({ topic: 'lost' }))).rejects.toMatchObject({
      code: 'SESSION_SAVE_FAILED',
    });
    expect(failures).toHaveLength(2);
    expect(await snapshotOf()).toEqual(before);

    // once the fault is gone the session carries on from where it was
    failOn = undefined;
    const result = await runtime.execute(key, sendMessage('again'));
    expect(result.output).toBe('reply: again');
    expect(texts(await store.readHistory(key))).toEqual([
      'hello',
      'reply: hello',
      'again',
      'reply: again',
    ]);
    expect((await store.load(key)).version).toBeGreaterThan(before.record.version);
  });
});
