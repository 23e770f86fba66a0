import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Agent, LevelSessionStore } from '../../src/index.js';
import type { Item } from '../../src/items/item.js';
import { kill, runScript, spawnScript, waitForLine } from '../helpers/child-process.js';
import { alice, echoModel, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const CHILD = 'test/helpers/alice-process.ts';
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

interface ChildReport {
  output: string;
  version: number;
  historyLength: number;
  history: Item[];
}

async function reopen(path: string): Promise<LevelSessionStore> {
  const store = await LevelSessionStore.open({ path });
  temps.defer(() => store.close());
  return store;
}

describe('a session survives its process', () => {
  it('a second process remembers what alice said in the first', async () => {
    const path = join(await temps.folder(), 'db');
    const child = await runScript(CHILD, [path, 'chat', "Hi, I'm Alice."]);
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    const report = JSON.parse(child.stdout.replace(/^DONE /, '')) as ChildReport;
    expect(report.output).toBe("reply: Hi, I'm Alice.");

    const store = await reopen(path);
    const model = echoModel();
    const agent = new Agent({ name: 'assistant', model, store });
    const result = await agent.run('What did I just say?', { sessionId: 'chat', userId: 'alice' });
    expect(texts(model.calls[0]!.items)).toEqual([
      "Hi, I'm Alice.",
      "reply: Hi, I'm Alice.",
      'What did I just say?',
    ]);
    expect(result.output).toBe('You said: "Hi, I\'m Alice."');

    const fresh = await agent.run('What did I just say?', {
      sessionId: 'elsewhere',
      userId: 'alice',
    });
    expect(fresh.output).toBe('You have not said anything yet.');
  });

  it('SIGKILL after a finished run loses nothing that run wrote', async () => {
    const path = join(await temps.folder(), 'db');
    const child = await spawnScript(CHILD, [path, 'chat', "Hi, I'm Alice.", 'hold']);
    temps.defer(async () => void (await kill(child, 'SIGKILL'))); // never leave it running
    const report = JSON.parse(await waitForLine(child, 'READY ')) as ChildReport;
    expect(await kill(child, 'SIGKILL')).toBe('SIGKILL');

    const store = await reopen(path);
    const record = await store.load(alice('chat'));
    expect(record).toMatchObject({
      version: report.version,
      historyLength: report.historyLength,
      status: 'active',
    });
    expect(await store.readHistory(alice('chat'))).toEqual(report.history);
    expect(await store.userUsage('alice')).toMatchObject({ turns: 1 });

    const agent = new Agent({ name: 'assistant', model: echoModel(), store });
    const view = await agent.runtimeFor(store).getSession(alice('chat'));
    expect(view).toMatchObject({ state: 'active.idle', run: undefined });
    expect(view.lastRun).toMatchObject({ status: 'completed', output: "reply: Hi, I'm Alice." });
    const result = await agent.run('What did I just say?', { sessionId: 'chat', userId: 'alice' });
    expect(result.output).toBe('You said: "Hi, I\'m Alice."');
  });
});
