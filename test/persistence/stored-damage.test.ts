import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentStateError,
  Agent,
  InvalidSessionRecordError,
  exportReplay,
  sendMessage,
  suspendSession,
  tool,
} from '../../src/index.js';
import { openValue, sealValue } from '../../src/persistence/sealed-value.js';
import { RecordCodecs } from '../../src/store.js';
import type { JournalEntry } from '../../src/persistence/session-store.js';
import {
  historyKey,
  listIndexKey,
  recordKey,
  legacyOwnerMarkerKey,
  userTotalsKey,
} from '../../src/persistence/session-keys.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { recordDecisions } from '../../src/actions/record-decisions.js';
import { runDetail } from '../../src/inspect/inspector-reads.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  alice,
  assistantSetup,
  callTool,
  dumpBackend,
  storeWhole,
} from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

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
    await storeWhole(store, alice('s'));
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
    await storeWhole(store, alice('s'));
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
    // A store of agentstate 0.1 left an owner marker where it wrote no totals yet: zero totals.
    await store.backend.write([{ type: 'put', key: legacyOwnerMarkerKey('alice'), value: '1' }]);
    await expect(store.userUsage('alice')).resolves.toMatchObject({ turns: 0 });
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

/**
 * Values resealed with a valid checksum around content that cannot be (issue 26): a negative
 * cost, a token count no model reports, a tool result answering no call. Every read path
 * checks a value the same way: what `getSession` refuses, `listSessions` refuses too.
 */
describe('impossible content under a valid seal', () => {
  function workerAgent(store: KvSessionStore) {
    const work = tool({
      name: 'work',
      description: 'Does work',
      parameters: z.object({}),
      execute: () => 'worked',
    });
    const model = new ScriptedModel(
      (request) =>
        request.items.at(-1)?.type === 'tool_result' ? { text: 'done' } : callTool('work'),
      { recordCalls: true },
    );
    return { model, agent: new Agent({ name: 'worker', model, store, tools: [work] }) };
  }

  it('a listing entry with 1e308 output tokens: getSession and listSessions both refuse it', async () => {
    const { store, runtime } = await assistantSetup(temps);
    await runtime.execute(alice('s'), sendMessage('hello'));
    const index = listIndexKey(alice('s'));
    await rewrite(store, index, (info: { usage: { outputTokens: number } }) => {
      info.usage.outputTokens = 1e308;
    });
    const before = await dumpBackend(store);
    await expectDamage(runtime.getSession(alice('s')), index, 'usage.outputTokens');
    await expectDamage(runtime.listSessions({ userId: 'alice' }), index, 'usage.outputTokens');
    await expectDamage(store.list({ userId: 'alice' }), index, 'usage.outputTokens');
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('record and listing agreeing on impossible usage are refused by every read', async () => {
    const cases: [string, (usage: Record<string, number>) => void][] = [
      ['usage.costUsd', (usage) => (usage.costUsd = -0.5)],
      ['usage.outputTokens', (usage) => (usage.outputTokens = 1e308)],
      ['usage.inputTokens', (usage) => (usage.inputTokens = 2.5)],
    ];
    for (const [field, change] of cases) {
      const { store, runtime } = await assistantSetup(temps);
      await runtime.execute(alice('s'), sendMessage('hello'));
      const rKey = recordKey(alice('s'));
      await rewrite(store, rKey, (env: { record: { usage: Record<string, number> } }) => {
        change(env.record.usage);
      });
      await rewrite(store, listIndexKey(alice('s')), (info: { usage: Record<string, number> }) => {
        change(info.usage);
      });
      await expectDamage(runtime.getSession(alice('s')), rKey, `record.${field}`);
      await expectDamage(runtime.getSessionInfo(alice('s')), rKey, `record.${field}`);
      await expectDamage(
        runtime.listSessions({ userId: 'alice' }),
        listIndexKey(alice('s')),
        field,
      );
    }
  });

  it('user totals with 1e308 output tokens are refused, and the run does not start', async () => {
    const { store } = await temps.open();
    const { agent, model } = workerAgent(store);
    await agent.run('first', alice('s'));
    const tKey = userTotalsKey('alice');
    await rewrite(store, tKey, (totals: { outputTokens: number }) => {
      totals.outputTokens = 1e308;
    });
    const calls = model.calls.length;
    await expectDamage(store.userUsage('alice'), tKey, 'outputTokens');
    await expectDamage(agent.run('second', alice('s')), tKey, 'outputTokens');
    expect(model.calls.length).toBe(calls);
  });

  it("a journaled model answer with 1e308 output tokens fails the run's check", async () => {
    const { store, runtime } = await assistantSetup(
      temps,
      new ScriptedModel([callTool('danger'), { text: 'ok' }]),
    );
    const paused = await runtime.execute(alice('s'), sendMessage('do it'));
    const callId = paused.interruptions[0]!.callId;
    const entries = (await dumpBackend(store)).filter(([k]) => k.startsWith('j!'));
    const modelKey = entries.find(([k, v]) => openValue(k, v).json.includes('"kind":"model"'))?.[0];
    expect(modelKey).toBeDefined();
    await rewrite(store, modelKey!, (entry: { output: { usage: Record<string, number> } }) => {
      entry.output.usage.outputTokens = 1e308;
    });
    await expectDamage(
      runtime.execute(alice('s'), recordDecisions([{ callId, approve: true }])),
      modelKey!,
      'output.usage.outputTokens',
    );
  });

  it("a finished run's journaled usage is checked by every journal read (export, the inspector)", async () => {
    const { store } = await temps.open();
    const { agent } = workerAgent(store);
    const done = await agent.run('first', alice('s'));
    const entries = (await dumpBackend(store)).filter(([k]) => k.startsWith('j!'));
    const modelKey = entries.find(([k, v]) => openValue(k, v).json.includes('"kind":"model"'))![0];
    for (const [field, value] of [
      ['outputTokens', 1e308],
      ['costUsd', -5],
    ] as const) {
      await rewrite(store, modelKey, (entry: { output: { usage: Record<string, number> } }) => {
        entry.output.usage = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, [field]: value };
      });
      const runtime = workerAgent(store).agent.runtimeFor(store);
      await expectDamage(
        runDetail(runtime, alice('s'), done.id),
        modelKey,
        `output.usage.${field}`,
      );
      await expectDamage(exportReplay(runtime, alice('s')), modelKey, `output.usage.${field}`);
    }
  });

  it('a tool result whose call id matches no call of its turn is named by key', async () => {
    const { store } = await temps.open();
    await workerAgent(store).agent.run('first', alice('s'));
    const history = await store.readHistory(alice('s'));
    const at = history.findIndex((item) => item.type === 'tool_result');
    expect(at).toBeGreaterThan(0);
    const hKey = historyKey(alice('s'), at);
    await rewrite(store, hKey, (item: { callId: string }) => {
      item.callId = 'call_nobody_made';
    });
    await expectDamage(store.readHistory(alice('s')), hKey, 'callId');
    const later = workerAgent(store); // another process: nothing of the session cached
    await expectDamage(later.agent.run('second', alice('s')), hKey, 'callId');
    expect(later.model.calls.length).toBe(0);
    // A read that starts inside the turn cannot see the call: it does not guess.
    expect(await store.readHistory(alice('s'), at)).toHaveLength(history.length - at);
  });
});

/**
 * Issue 39: every journal read goes through the store's one schema of a journal entry, its
 * output included, so no read path hands a resealed impossible value on.
 */
describe('every journal read refuses a resealed impossible entry', () => {
  for (const [field, value] of [
    ['costUsd', -5],
    ['outputTokens', 1e308],
    ['inputTokens', 2.5],
  ] as const) {
    it(`usage.${field} = ${value}: readRunJournal, readJournal, attach and the codecs refuse it`, async () => {
      const { store } = await temps.open();
      const model = new ScriptedModel([{ text: 'hi' }]);
      const agent = new Agent({ name: 'a', model, store });
      const done = await agent.run('hello', alice('s'));
      const entries = (await dumpBackend(store)).filter(([k]) => k.startsWith('j!'));
      const [modelKey, raw] = entries.find(([k, v]) =>
        openValue(k, v).json.includes('"kind":"model"'),
      )!;
      const entry = JSON.parse(openValue(modelKey, raw).json) as JournalEntry;
      const bad = {
        ...entry,
        output: {
          ...(entry.output as object),
          usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, [field]: value },
        },
      };
      // Sealed as a store writing through the record codecs would seal it.
      await store.backend.write([
        { type: 'put', key: modelKey, value: sealValue(modelKey, JSON.stringify(bad)) },
      ]);
      const before = await dumpBackend(store);
      const path = `output.usage.${field}`;
      await expectDamage(store.readRunJournal(alice('s'), done.id), modelKey, path);
      await expectDamage(store.readJournal(alice('s'), done.id, entry.step), modelKey, path);
      const attached = (async () => {
        for await (const _event of agent.attach('s', { userId: 'alice' })) void _event;
      })();
      await expectDamage(attached, modelKey, path);
      const codecs = new RecordCodecs();
      expect(() =>
        codecs.decodeJournalEntry(
          alice('s'),
          done.id,
          entry.step,
          before.find(([k]) => k === modelKey)![1],
        ),
      ).toThrow(InvalidSessionRecordError);
      // A store writing through the codecs cannot seal it in the first place.
      expect(() => codecs.encodeJournalEntry(alice('s'), bad)).toThrow(TypeError);
      expect(await dumpBackend(store)).toEqual(before);
    });
  }
});

describe('impossible usage from a model', () => {
  it('is a ModelError of the call, and the session stays readable', async () => {
    for (const usage of [{ inputTokens: 2.5 }, { outputTokens: -1 }, { cachedTokens: 1e308 }]) {
      const { store } = await temps.open();
      const model = new ScriptedModel([{ text: 'hi', usage }]);
      const agent = new Agent({ name: 'a', model, store });
      const field = Object.keys(usage)[0]!;
      const result = await agent.run('hello', alice('s'));
      expect(result.error, field).toMatchObject({ code: 'MODEL_ERROR' });
      expect(result.error?.message).toContain(`usage.${field}`);
      const runtime = new Agent({ name: 'a', model, store }).runtimeFor(store);
      expect((await runtime.getSession(alice('s'))).usage.inputTokens).toBe(0);
      expect((await runtime.listSessions({ userId: 'alice' })).sessions).toHaveLength(1);
      expect(await store.userUsage('alice')).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    }
  });
});
