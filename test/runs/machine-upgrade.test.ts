import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  RestoreFailedError,
  sendMessage,
  suspendSession,
  type SnapshotMigration,
} from '../../src/index.js';
import { MACHINE_VERSION } from '../../src/machines/session-machine.js';
import { openValue, sealValue } from '../../src/persistence/sealed-value.js';
import { recordKey } from '../../src/persistence/session-keys.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import type { SessionKey } from '../../src/persistence/session-store.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  alice,
  callTool,
  dangerTool,
  echoModel,
  storeWhole,
  texts,
} from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Upgrading the library keeps sessions (issue 9, point 11): a session without a run restores
 * under a new machine version; one with a run needs a registered snapshot migration, or fails
 * with a typed error naming both versions.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const OLD = 'session-0/run-0';

/** Stamps the stored record as written by other machines (as an older agentstate would). */
async function writtenBy(store: KvSessionStore, session: SessionKey, machineVersion: string) {
  await storeWhole(store, session);
  const key = recordKey(session);
  const raw = (await store.backend.get(key))!;
  const envelope = JSON.parse(openValue(key, raw).json) as { machineVersion: string };
  envelope.machineVersion = machineVersion;
  await store.backend.write([
    { type: 'put', key, value: sealValue(key, JSON.stringify(envelope)) },
  ]);
}

async function storedMachineVersion(store: KvSessionStore, key: string): Promise<string> {
  const raw = (await store.backend.get(key))!;
  return (JSON.parse(openValue(key, raw).json) as { machineVersion: string }).machineVersion;
}

describe('sessions across machine versions', () => {
  it('idle and suspended sessions restore under a new machine version and are saved with it', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'assistant', model: echoModel(), store });
    const runtime = agent.runtimeFor(store);
    await runtime.execute(alice('idle'), sendMessage('hello'));
    await runtime.execute(alice('asleep'), sendMessage('hi'));
    await runtime.execute(alice('asleep'), suspendSession());
    for (const id of ['idle', 'asleep']) await writtenBy(store, alice(id), OLD);

    expect((await runtime.getSession(alice('asleep'))).state).toBe('suspended');
    const result = await runtime.execute(alice('idle'), sendMessage('again'));
    expect(result.output).toBe('reply: again');
    expect(texts(await store.readHistory(alice('idle')))).toEqual([
      'hello',
      'reply: hello',
      'again',
      'reply: again',
    ]);
    expect(await storedMachineVersion(store, recordKey(alice('idle')))).toBe(MACHINE_VERSION);
  });

  it('a paused run of another machine version fails typed, naming both versions, and changes nothing', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([callTool('danger'), { text: 'done' }]);
    const agent = new Agent({ name: 'assistant', model, store, tools: [dangerTool] });
    const paused = await agent.run('go', { sessionId: 'p', userId: 'alice' });
    expect(paused.interruptionReason).toBe('approval');
    await writtenBy(store, alice('p'), OLD);
    const before = await store.backend.get(recordKey(alice('p')));
    const error = await agent.resume('p', { userId: 'alice' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestoreFailedError);
    expect((error as Error).message).toContain(OLD);
    expect((error as Error).message).toContain(MACHINE_VERSION);
    expect(await store.backend.get(recordKey(alice('p')))).toBe(before);
  });

  it('a registered snapshot migration upgrades a paused run, which then completes', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([callTool('danger'), { text: 'done' }]);
    const seen: unknown[] = [];
    const migration: SnapshotMigration = {
      from: OLD,
      migrate: (snapshot) => {
        seen.push(snapshot);
        return snapshot; // this test's "old" machines are shaped like today's
      },
    };
    const agent = new Agent({
      name: 'assistant',
      model,
      store,
      tools: [dangerTool],
      snapshotMigrations: [migration],
    });
    const paused = await agent.run('go', { sessionId: 'p', userId: 'alice' });
    await writtenBy(store, alice('p'), OLD);
    const callId = paused.interruptions[0]!.callId;
    const waiting = await agent.resume('p', { userId: 'alice' });
    const done = await agent.resume(waiting.state.approve(callId));
    expect(done.output).toBe('done');
    expect(seen.length).toBeGreaterThan(0);
    expect(await storedMachineVersion(store, recordKey(alice('p')))).toBe(MACHINE_VERSION);
  });
});
