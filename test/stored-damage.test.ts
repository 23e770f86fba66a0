import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentStateError,
  Agent,
  InvalidSessionRecordError,
  sendMessage,
  suspendSession,
  tool,
} from '../src/index.js';
import { openValue, sealValue } from '../src/persistence/sealed-value.js';
import {
  historyKey,
  listIndexKey,
  recordKey,
  userTotalsKey,
} from '../src/persistence/session-keys.js';
import type { KvSessionStore } from '../src/persistence/kv-session-store.js';
import { ScriptedModel } from '../src/testing.js';
import { alice, assistantSetup, callTool, dumpBackend } from './helpers/session-fixtures.js';
import { TempStores } from './helpers/temp-store.js';

/**
 * Damaged stored values found by the integrity review (issue 8, points 1 to 3): each is a
 * typed error naming the key (and the field) before any model or tool call, and nothing that
 * was stored changes.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Rewrites the JSON inside a stored value and seals it again (a bug, not a flipped bit). */
async function rewrite(store: KvSessionStore, key: string, change: (value: never) => unknown) {
  const raw = await store.backend.get(key);
  if (raw === undefined) throw new Error(`no value at ${key}`);
  const value = JSON.parse(openValue(key, raw).json) as never;
  const next = change(value) ?? value;
  await store.backend.write([{ type: 'put', key, value: sealValue(key, JSON.stringify(next)) }]);
}

/** Expects `promise` to fail with an InvalidSessionRecordError naming `key`. */
async function expectDamage(promise: Promise<unknown>, key: string, field?: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidSessionRecordError);
  expect(error).toMatchObject({ code: 'INVALID_SESSION_RECORD', key });
  if (field !== undefined) expect((error as InvalidSessionRecordError).field).toBe(field);
  expect((error as Error).message).toContain(key);
}

describe('damaged snapshots (point 1)', () => {
  it('a snapshot of the wrong shape is a typed error naming key and field, before any actor', async () => {
    const { store, runtime, model } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('hello'));
    const rKey = recordKey(alice('s'));
    await rewrite(
      store,
      rKey,
      (env: { record: { snapshot: { context: { config: unknown } } } }) => {
        env.record.snapshot.context.config = null;
      },
    );
    const before = await dumpBackend(store);
    const calls = model.calls.length;
    await expectDamage(runtime.getSession(alice('s')), rKey, 'record.snapshot.context.config');
    await expectDamage(runtime.execute(alice('s'), sendMessage('again')), rKey);
    await expectDamage(runtime.execute(alice('s'), suspendSession()), rKey);
    expect(model.calls.length).toBe(calls);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('a paused run whose calls are not a list fails typed, not with "calls.some is not a function"', async () => {
    const model = new ScriptedModel([callTool('danger'), { text: 'ok' }], { recordCalls: true });
    const { store, runtime } = await assistantSetup(temps, model);
    const paused = await runtime.execute(alice('s'), sendMessage('do it'));
    expect(paused.interruptionReason).toBe('approval');
    const rKey = recordKey(alice('s'));
    await rewrite(
      store,
      rKey,
      (env: {
        record: { snapshot: { children: { run: { snapshot: { context: { calls: unknown } } } } } };
      }) => {
        env.record.snapshot.children.run.snapshot.context.calls = 'x';
      },
    );
    const before = await dumpBackend(store);
    await expectDamage(
      runtime.getSession(alice('s')),
      rKey,
      'record.snapshot.children.run.snapshot.context.calls',
    );
    await expectDamage(runtime.execute(alice('s'), suspendSession()), rKey);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('a running session without the step child its state needs is refused (it would hang)', async () => {
    const model = new ScriptedModel([callTool('danger'), { text: 'ok' }], { recordCalls: true });
    const { store, runtime } = await assistantSetup(temps, model);
    await runtime.execute(alice('s'), sendMessage('do it'));
    const rKey = recordKey(alice('s'));
    await rewrite(
      store,
      rKey,
      (env: {
        record: { snapshot: { children: { run: { snapshot: { children: object } } } } };
      }) => {
        env.record.snapshot.children.run.snapshot.children = {};
      },
    );
    await expectDamage(
      runtime.getSession(alice('s')),
      rKey,
      'record.snapshot.children.run.snapshot.children',
    );
  });

  it('a flipped bit anywhere in a record is caught by its checksum', async () => {
    const { store, runtime } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('hello'));
    const rKey = recordKey(alice('s'));
    const raw = (await store.backend.get(rKey))!;
    // "hello" -> "hellm": still valid JSON of the right shape, only the checksum can tell.
    const flipped = raw.replace('"sessionId":"s"', '"sessionId":"t"');
    expect(flipped).not.toBe(raw);
    await store.backend.write([{ type: 'put', key: rKey, value: flipped }]);
    await expectDamage(runtime.getSession(alice('s')), rKey);
  });
});

describe('missing and moved history items (point 2)', () => {
  it('a deleted item is named; the next run never sees a conversation with a hole', async () => {
    const { store, runtime, model } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('one'));
    await runtime.execute(alice('s'), sendMessage('two'));
    const hole = historyKey(alice('s'), 1);
    await store.backend.write([{ type: 'del', key: hole }]);
    const before = await dumpBackend(store);
    await expectDamage(store.readHistory(alice('s')), hole);
    const calls = model.calls.length;
    // A fresh runtime (no cached history) reads the log for the next message.
    const fresh = new Agent({ name: 'assistant', model, store }).runtimeFor(store);
    await expectDamage(fresh.execute(alice('s'), sendMessage('three')), hole);
    expect(model.calls.length).toBe(calls);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('an item copied to another position fails its checksum (the seal covers the key)', async () => {
    const { store, runtime } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('one'));
    await runtime.execute(alice('s'), sendMessage('two'));
    const first = (await store.backend.get(historyKey(alice('s'), 0)))!;
    await store.backend.write([{ type: 'put', key: historyKey(alice('s'), 2), value: first }]);
    await expectDamage(store.readHistory(alice('s')), historyKey(alice('s'), 2));
  });

  it('a truncated log (the last item deleted) is named too', async () => {
    const { store, runtime } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('one'));
    await store.backend.write([{ type: 'del', key: historyKey(alice('s'), 1) }]);
    await expectDamage(store.readHistory(alice('s')), historyKey(alice('s'), 1));
  });

  it('a deleted listing entry or record is named by load and list', async () => {
    const { store, runtime } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('one'));
    await runtime.execute(alice('t'), sendMessage('one'));
    const index = listIndexKey(alice('s'));
    const entry = (await store.backend.get(index))!;
    await store.backend.write([{ type: 'del', key: index }]);
    await expectDamage(store.load(alice('s')), index);
    await expectDamage(store.list({ userId: 'alice' }), index);
    await store.backend.write([
      { type: 'put', key: index, value: entry },
      { type: 'del', key: recordKey(alice('s')) },
    ]);
    await expectDamage(store.load(alice('s')), recordKey(alice('s')));
    await expectDamage(store.list({ userId: 'alice' }), recordKey(alice('s')));
  });
});

describe('damaged user totals (point 3)', () => {
  function toolAgent(store: KvSessionStore) {
    let ran = 0;
    const work = tool({
      name: 'work',
      description: 'Does work',
      parameters: z.object({}),
      execute: () => `worked ${++ran}`,
    });
    const model = new ScriptedModel(
      (request) =>
        request.items.at(-1)?.type === 'tool_result' ? { text: 'done' } : callTool('work'),
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'worker', model, store, tools: [work] });
    return { agent, model, ran: () => ran };
  }

  it('are found before the run does any work; the session is not left running', async () => {
    const { store } = await temps.open();
    const { agent, model, ran } = toolAgent(store);
    await agent.run('first', { sessionId: 's', userId: 'alice' });
    const tKey = userTotalsKey('alice');
    await store.backend.write([{ type: 'put', key: tKey, value: '{"turns":"many"' }]);
    const before = await dumpBackend(store);
    const calls = model.calls.length;
    const tools = ran();
    await expectDamage(agent.run('second', { sessionId: 's', userId: 'alice' }), tKey);
    expect(model.calls.length).toBe(calls);
    expect(ran()).toBe(tools);
    expect(await dumpBackend(store)).toEqual(before);
    // The session is still idle: once the totals are repaired, the next message runs normally.
    const totals = { turns: 2, inputTokens: 20, outputTokens: 10, costUsd: 0 };
    await store.backend.write([
      { type: 'put', key: tKey, value: sealValue(tKey, JSON.stringify(totals)) },
    ]);
    const result = await agent.run('second', { sessionId: 's', userId: 'alice' });
    expect(result.output).toBe('done');
  });

  it('deleted totals beside stored sessions are damage, not a silent zero', async () => {
    const { store } = await temps.open();
    const { agent } = toolAgent(store);
    await agent.run('first', { sessionId: 's', userId: 'alice' });
    const tKey = userTotalsKey('alice');
    await store.backend.write([{ type: 'del', key: tKey }]);
    await expectDamage(store.userUsage('alice'), tKey);
    await expectDamage(agent.run('second', { sessionId: 's', userId: 'alice' }), tKey);
    // Another user's first session is unaffected: no totals yet is not damage there.
    await expect(store.userUsage('bob')).resolves.toMatchObject({ turns: 0 });
    await agent.run('hi', { sessionId: 's', userId: 'bob' });
  });

  it('a save that fails after the work leaves the session resumable', async () => {
    let failures = 0;
    const { store } = await temps.open({
      // The batch that journals the tool's result fails, once: the work is done, not saved.
      onBatchOp: (_index, op) => {
        if (
          failures === 0 &&
          op.type === 'put' &&
          op.key.startsWith('j!') &&
          op.value.includes('"kind":"tool"')
        ) {
          failures += 1;
          throw new Error('disk full');
        }
      },
    });
    const { agent, model } = toolAgent(store);
    const error = await agent
      .run('go', { sessionId: 's', userId: 'alice' })
      .catch((e: unknown) => e);
    expect(failures).toBe(1);
    expect(error).toBeInstanceOf(AgentStateError);
    expect((error as AgentStateError).code).toBe('SESSION_SAVE_FAILED');
    const resumed = await agent.resume('s', { userId: 'alice' });
    expect(resumed.output).toBe('done');
    expect(model.calls.length).toBeGreaterThanOrEqual(2);
  });
});
