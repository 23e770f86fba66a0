import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, SessionRuntime, sendMessage } from '../../src/index.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { echoModel } from '../helpers/session-fixtures.js';
import { tempFolder } from '../helpers/temp-store.js';

const folders: string[] = [];
const stores: LevelSessionStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
});

async function openStore(): Promise<LevelSessionStore> {
  const folder = await tempFolder();
  folders.push(folder);
  const store = await LevelSessionStore.open({ path: join(folder, 'db') });
  stores.push(store);
  return store;
}

/**
 * Metadata that counts its plain-JSON checks: the argument check (`isPlainJson`) is the only
 * reader of its prototype, so each `getPrototypeOf` is one check of the message's arguments.
 */
function countedMetadata(): { metadata: Record<string, unknown>; checks: () => number } {
  let checks = 0;
  const metadata = new Proxy<Record<string, unknown>>(
    { tenant: 'acme' },
    {
      getPrototypeOf(target) {
        checks += 1;
        return Reflect.getPrototypeOf(target);
      },
    },
  );
  return { metadata, checks: () => checks };
}

describe('a message is checked once, at its call (issue 41)', () => {
  it('agent.run checks its arguments once', async () => {
    const store = await openStore();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const { metadata, checks } = countedMetadata();
    const result = await agent.run('hi', { sessionId: 's', userId: 'u', metadata });
    expect(result.output).toBe('reply: hi');
    expect(checks()).toBe(1);
    const stored = await agent.runtimeFor(store).getSession({ sessionId: 's', userId: 'u' });
    expect(stored.lastRun?.status).toBe('completed');
  });

  it('agent.stream checks its arguments once', async () => {
    const store = await openStore();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const { metadata, checks } = countedMetadata();
    const stream = agent.stream('hi', { sessionId: 's', userId: 'u', metadata });
    for await (const _event of stream) {
      // drained
    }
    expect((await stream.result).output).toBe('reply: hi');
    expect(checks()).toBe(1);
  });

  it('agent.resume checks its options once', async () => {
    const store = await openStore();
    const agent = new Agent({ name: 'echo', model: echoModel(), store, maxTurns: 1 });
    await agent.run('hi', { sessionId: 's', userId: 'u' });
    const { metadata, checks } = countedMetadata();
    // Nothing to resume: the options are checked at the call, then the action refuses it.
    await expect(agent.resume('s', { userId: 'u', metadata })).rejects.toMatchObject({
      code: 'NOTHING_TO_RESUME',
    });
    expect(checks()).toBe(1);
  });

  it('session.run checks its arguments once (model settings read by the plain-JSON check)', async () => {
    const store = await openStore();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const session = await agent.createSession({ sessionId: 's', userId: 'u' });
    const { metadata: extra, checks } = countedMetadata();
    const result = await session.run('hi', { modelSettings: { extra } });
    await session.close();
    expect(result.output).toBe('reply: hi');
    expect(checks()).toBe(1);
  });

  it('a session action built by sendMessage() is checked once, where it is built', async () => {
    const store = await openStore();
    const agent = new Agent({ name: 'echo', model: echoModel(), store });
    const runtime = new SessionRuntime({ store, agent });
    const { metadata, checks } = countedMetadata();
    const result = await runtime.execute(
      { sessionId: 's', userId: 'u' },
      sendMessage('hi', { metadata }),
    );
    expect(result.output).toBe('reply: hi');
    expect(checks()).toBe(1);
  });
});
