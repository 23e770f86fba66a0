import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore } from '../../src/index.js';
import { alice, echoModel, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('history lives outside the snapshot', () => {
  it('the same sessionId continues the conversation; a new one starts fresh (seed 000)', async () => {
    const { store } = await temps.open();
    const model = echoModel();
    const agent = new Agent({ name: 'assistant', model });

    await agent.run("Hi, I'm Alice.", { sessionId: 'chat', userId: 'alice', store });
    const second = await agent.run('What did I just say?', {
      sessionId: 'chat',
      userId: 'alice',
      store,
    });
    expect(texts(model.calls[1]!.items)).toEqual([
      "Hi, I'm Alice.",
      "reply: Hi, I'm Alice.",
      'What did I just say?',
    ]);
    expect(second.output).toBe('You said: "Hi, I\'m Alice."');

    const fresh = await agent.run('What did I just say?', {
      sessionId: 'other',
      userId: 'alice',
      store,
    });
    expect(texts(model.calls[2]!.items)).toEqual(['What did I just say?']);
    expect(fresh.output).toBe('You have not said anything yet.');
  });

  it('a new agent and a reopened store read the same conversation back', async () => {
    const temp = await temps.open();
    await new Agent({ name: 'assistant', model: echoModel() }).run("Hi, I'm Alice.", {
      sessionId: 'chat',
      userId: 'alice',
      store: temp.store,
    });
    await temp.store.close();

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    const model = echoModel();
    const result = await new Agent({ name: 'assistant', model }).run('What did I just say?', {
      sessionId: 'chat',
      userId: 'alice',
      store: reopened,
    });
    expect(result.output).toBe('You said: "Hi, I\'m Alice."');
    expect(model.calls[0]!.items).toHaveLength(3);
  });

  it('the snapshot does not grow with the conversation', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'assistant', model: echoModel(), store });
    const sizes: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      await agent.run(`message ${i}`, { sessionId: 'chat', userId: 'alice' });
      sizes.push(JSON.stringify((await store.load(alice('chat'))).snapshot).length);
    }
    expect(await store.readHistory(alice('chat'))).toHaveLength(60);
    expect(JSON.stringify((await store.load(alice('chat'))).snapshot)).not.toContain('message 0');
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(40);
  });

  it('bytes written per turn at turn 500 are at most 1.5x those at turn 5', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'assistant', model: echoModel(), store });
    const written: number[] = [];
    const turn = async (i: number) => {
      const before = store.stats().bytesWritten;
      await agent.run(`message number ${i}`, { sessionId: 'long', userId: 'alice' });
      written[i] = store.stats().bytesWritten - before;
    };
    for (let i = 1; i <= 500; i += 1) await turn(i);
    const at5 = written[5]!;
    const at500 = written[500]!;
    const ratio = at500 / at5;
    console.log(
      `bytes per turn: turn 5 = ${at5}, turn 500 = ${at500}, ratio = ${ratio.toFixed(3)}`,
    );
    expect(at5).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(1.5);
    expect((await store.load(alice('long'))).historyLength).toBe(1000);
  }, 120_000);
});
