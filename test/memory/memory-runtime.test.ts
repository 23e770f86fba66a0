import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, openMemory, type Embedder, type ModelRequest } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { MapSessionStore } from '../helpers/map-session-store.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A bag-of-words embedder (a fake passed in): texts sharing words point the same way. */
function wordsEmbedder(dimensions = 32): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'words',
    dimensions,
    calls,
    embed(texts) {
      calls.push([...texts]);
      const vectors = texts.map((text) => {
        const v = new Float32Array(dimensions);
        v[0] = 0.01;
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          if (word.length < 4) continue;
          let h = 0;
          for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
          v[h % dimensions]! += 1;
        }
        return v;
      });
      return Promise.resolve({ vectors, usage: { inputTokens: texts.length * 3 } });
    },
  };
}

const systemText = (request: ModelRequest) =>
  request.items
    .filter((i) => i.type === 'message' && i.role === 'system')
    .map((i) => (i.type === 'message' ? String(i.content) : ''));

describe('memory across sessions', () => {
  it('recalls a fact said in another session of the user, never another user’s', async () => {
    const { store } = await temps.open();
    const embedder = wordsEmbedder();
    const model = new ScriptedModel(() => ({ text: 'noted' }), { recordCalls: true });
    const agent = new Agent({ name: 'assistant', model, store, memory: { embedder } });
    await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'alice' });
    await agent.run('I am allergic to peanuts too', { sessionId: 'b1', userId: 'bob' });
    const result = await agent.run('Which peanuts snack is safe for me, allergic as I am?', {
      sessionId: 's2',
      userId: 'alice',
    });
    const last = model.calls.at(-1)!;
    const recalled = systemText(last);
    expect(recalled).toHaveLength(1);
    expect(recalled[0]).toContain('I am allergic to peanuts');
    expect(recalled[0]).toContain('conversation s1');
    expect(recalled[0]).not.toContain('too');
    // the memories' message goes just before the newest user message
    expect(last.items.at(-1)).toMatchObject({ role: 'user' });
    expect(last.items.at(-2)).toMatchObject({ role: 'system' });
    // the journal says which memories and why
    const entries = await store.readRunJournal({ sessionId: 's2', userId: 'alice' }, result.id);
    const facts = (entries[0]!.output as { request: { memory: Record<string, unknown> } }).request
      .memory;
    expect(facts['recalled']).toEqual([
      expect.objectContaining({ id: 'msg:s1:0', kind: 'message', sessionId: 's1' }),
    ]);
    expect((facts['recalled'] as { score: number }[])[0]!.score).toBeGreaterThan(0.5);
    expect(facts['embedding']).toEqual({ model: 'words', inputTokens: 3 });
    // embedding tokens count in the run's usage (10 per model call + 3)
    expect(result.usage.inputTokens).toBe(13);
  });

  it('counts a priced embedder’s cost in the run’s usage', async () => {
    const { store } = await temps.open();
    const embedder = { ...wordsEmbedder(), pricePerMillionTokens: 100_000 };
    const model = new ScriptedModel(() => ({ text: 'ok' }), {
      price: { inputPerMillion: 0, outputPerMillion: 0 },
    });
    const agent = new Agent({ name: 'assistant', model, store, memory: { embedder } });
    const result = await agent.run('hello there friend', { sessionId: 's1', userId: 'alice' });
    // 3 embedding tokens at 0.1 USD each; the model itself is free
    expect(result.usage.costUsd).toBeCloseTo(0.3, 10);
  });

  it('recalls from the run’s resource only, or from the whole user with scope "user"', async () => {
    const { store } = await temps.open();
    const embedder = wordsEmbedder();
    const ask = async (recallScope: 'resource' | 'user') => {
      const model = new ScriptedModel(() => ({ text: 'ok' }), { recordCalls: true });
      const agent = new Agent({
        name: 'assistant',
        model,
        store,
        memory: {
          embedder,
          resource: (context) => context.metadata['project'] as string | undefined,
          recall: { scope: recallScope },
        },
      });
      return { agent, model };
    };
    const first = await ask('resource');
    await first.agent.run('The launch codename is Bluebird', {
      sessionId: 'p1-a',
      userId: 'alice',
      metadata: { project: 'p1' },
    });
    const second = await ask('resource');
    await second.agent.run('What is the launch codename?', {
      sessionId: 'p2-a',
      userId: 'alice',
      metadata: { project: 'p2' },
    });
    expect(systemText(second.model.calls.at(-1)!)).toEqual([]);
    const third = await ask('user');
    await third.agent.run('What is the launch codename?', {
      sessionId: 'p2-b',
      userId: 'alice',
      metadata: { project: 'p2' },
    });
    expect(systemText(third.model.calls.at(-1)!)[0]).toContain('Bluebird');
  });

  it('shows the working memory in the instructions and updates it through its tool, once per call', async () => {
    const { store } = await temps.open();
    let turn = 0;
    const model = new ScriptedModel(
      () =>
        turn++ === 0
          ? {
              toolCalls: [
                {
                  name: 'update_working_memory',
                  arguments: { append: 'Name: Alice' },
                  callId: 'c1',
                },
              ],
            }
          : { text: 'ok' },
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'assistant', model, store, memory: {} });
    await agent.run('Call me Alice', { sessionId: 's1', userId: 'alice' });
    const memory = openMemory(store);
    expect(await memory.workingMemory({ userId: 'alice' })).toMatchObject({
      content: 'Name: Alice',
      version: 1,
    });
    expect(model.calls[0]!.instructions).toContain('(version 0)');
    turn = 5;
    await agent.run('hello again', { sessionId: 's2', userId: 'alice' });
    expect(model.calls[2]!.instructions).toContain('Name: Alice');
    expect(model.calls[2]!.instructions).toContain('(version 1)');
    // the same op again (a retried call) changes nothing
    const again = await memory.updateWorkingMemory(
      { userId: 'alice' },
      { append: 'Name: Alice' },
      { opId: 's1:c1' },
    );
    expect(again).toMatchObject({ applied: false, version: 1 });
    expect((await memory.workingMemory({ userId: 'alice' }))?.content).toBe('Name: Alice');
  });

  it('keeps two sessions’ concurrent updates (neither is lost)', async () => {
    const { store } = await temps.open();
    const memory = openMemory(store);
    const scope = { userId: 'alice' };
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        memory.updateWorkingMemory(scope, { append: `line ${i}` }, { opId: `op${i}` }),
      ),
    );
    const doc = await memory.workingMemory(scope);
    expect(doc?.version).toBe(10);
    for (let i = 0; i < 10; i++) expect(doc?.content).toContain(`line ${i}`);
  });

  it('refuses an update that breaks the schema: the model reads the error, nothing is stored', async () => {
    const { store } = await temps.open();
    const schema = z.object({ name: z.string(), age: z.number().int() });
    let turn = 0;
    const model = new ScriptedModel(
      () =>
        turn++ === 0
          ? {
              toolCalls: [
                {
                  name: 'update_working_memory',
                  arguments: { set: { age: 'forty' } },
                  callId: 'c1',
                },
              ],
            }
          : { text: 'ok' },
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'assistant',
      model,
      store,
      memory: { workingMemory: { schema } },
    });
    await agent.run('I am forty', { sessionId: 's1', userId: 'alice' });
    const result = model.calls[1]!.items.at(-1);
    expect(result).toMatchObject({ type: 'tool_result', isError: true });
    expect(JSON.stringify(result)).toContain('Working memory update refused');
    expect(await openMemory(store).workingMemory({ userId: 'alice' })).toBeUndefined();
    // the model is shown the app's fields
    const spec = model.calls[0]!.tools.find((t) => t.name === 'update_working_memory');
    expect(JSON.stringify(spec?.parameters)).toContain('"age"');
    await expect(
      openMemory(store, { workingMemory: { schema } }).updateWorkingMemory(
        { userId: 'alice' },
        { set: { age: 'x' } },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_WORKING_MEMORY' });
  });

  it('saves a fact with remember, once, and recalls it from another session', async () => {
    const { store } = await temps.open();
    const embedder = wordsEmbedder();
    let turn = 0;
    const model = new ScriptedModel(
      () =>
        turn++ === 0
          ? {
              toolCalls: [
                {
                  name: 'remember',
                  arguments: { text: 'Alice prefers window seats' },
                  callId: 'c9',
                },
              ],
            }
          : { text: 'ok' },
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'assistant', model, store, memory: { embedder } });
    await agent.run('book me a flight', { sessionId: 's1', userId: 'alice' });
    const memory = openMemory(store, { embedder });
    const page = await memory.list({ userId: 'alice', kind: 'fact' });
    expect(page.memories.map((m) => [m.id, m.text, m.sessionId])).toEqual([
      ['fact:s1:c9', 'Alice prefers window seats', 's1'],
    ]);
    const found = await memory.search({ userId: 'alice', text: 'window seats please' });
    expect(found[0]?.memory.id).toBe('fact:s1:c9');
  });

  it('refuses an agent with memory on a store that keeps none', async () => {
    const plain = new MapSessionStore();
    const model = new ScriptedModel([{ text: 'hi' }]);
    expect(() => new Agent({ name: 'assistant', model, store: plain, memory: {} })).toThrow(
      expect.objectContaining({ code: 'MEMORY_UNSUPPORTED' }) as Error,
    );
    // a store handed to one call is checked when the call starts
    const agent = new Agent({
      name: 'assistant',
      model,
      memory: {},
      store: (await temps.open()).store,
    });
    expect(() => agent.run('hi', { sessionId: 's', userId: 'u', store: plain })).toThrow(
      expect.objectContaining({ code: 'MEMORY_UNSUPPORTED' }) as Error,
    );
  });
});
