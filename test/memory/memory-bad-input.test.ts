import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  openMemory,
  type Embedder,
  type LevelSessionStore,
} from '../../src/index.js';
import { ScriptedModel, scriptedEmbedder } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** An embedder (a fake passed in) whose vectors `answer` makes from the scripted one's. */
function brokenEmbedder(answer: (good: Float32Array) => Float32Array): Embedder {
  const good = scriptedEmbedder({ dimensions: 8 });
  return {
    name: 'scripted',
    dimensions: 8,
    async embed(texts, options) {
      const { vectors, usage } = await good.embed(texts, options);
      return { vectors: vectors.map((v) => answer(v as Float32Array)), usage };
    },
  };
}

/** The last run of alice's session `sessionId`, as stored. */
async function lastRun(agent: Agent, store: LevelSessionStore, sessionId: string) {
  return (await agent.runtimeFor(store).getSession({ sessionId, userId: 'alice' })).lastRun;
}

/** Everything of alice's memory the store holds. */
async function aliceMemory(store: LevelSessionStore) {
  const memory = openMemory(store);
  return {
    memories: (await memory.list({ userId: 'alice' })).memories.map((m) => [m.id, m.text]),
    working: await memory.workingMemory({ userId: 'alice' }),
  };
}

describe('memory: bad input through the agent', () => {
  for (const [what, answer] of [
    ['NaN', (v: Float32Array) => v.map((x, i) => (i === 0 ? NaN : x))],
    ['a wrong dimension', (v: Float32Array) => v.slice(0, 4)],
  ] as const) {
    it(`an embedder answering ${what}: the run ends with INVALID_EMBEDDING, no model call, nothing stored`, async () => {
      const { store } = await temps.open();
      const good = scriptedEmbedder({ dimensions: 8 });
      const agent = (embedder: Embedder, model: ScriptedModel) =>
        new Agent({ name: 'assistant', model, store, memory: { embedder } });
      await agent(good, new ScriptedModel(() => ({ text: 'ok' }))).run('I like tea', {
        sessionId: 's1',
        userId: 'alice',
      });
      const before = await aliceMemory(store);
      expect(before.memories).toEqual([['msg:s1:0', 'I like tea']]);

      const model = new ScriptedModel(() => ({ text: 'ok' }), { recordCalls: true });
      const broken = agent(brokenEmbedder(answer), model);
      const run = broken.run('Do I like tea?', { sessionId: 's2', userId: 'alice' });
      // the failed run's typed error, rebuilt from its stored form: its code and name kept
      await expect(run).rejects.toBeInstanceOf(AgentStateError);
      await expect(run).rejects.toMatchObject({
        code: 'INVALID_EMBEDDING',
        name: 'InvalidEmbeddingError',
      });
      expect(model.calls).toHaveLength(0);
      expect(await lastRun(broken, store, 's2')).toMatchObject({
        status: 'failed',
        error: { code: 'INVALID_EMBEDDING' },
      });
      expect(await aliceMemory(store)).toEqual(before);
    });
  }

  it('an embedder of another dimension under the same name: INVALID_MEMORY, the stored memories unchanged', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel(() => ({ text: 'ok' }), { recordCalls: true });
    const agent = (dimensions: number) =>
      new Agent({
        name: 'assistant',
        model,
        store,
        memory: { embedder: scriptedEmbedder({ dimensions }) },
      });
    await agent(8).run('I like tea', { sessionId: 's1', userId: 'alice' });
    const before = await aliceMemory(store);
    const other = agent(16);
    const run = other.run('Do I like tea?', { sessionId: 's2', userId: 'alice' });
    await expect(run).rejects.toMatchObject({ code: 'INVALID_MEMORY' });
    expect(await lastRun(other, store, 's2')).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_MEMORY' },
    });
    expect(model.calls).toHaveLength(1); // only the first session's
    expect(await aliceMemory(store)).toEqual(before);
  });

  it('an update from the model that breaks the schema: the model reads the typed error, the stored document is unchanged', async () => {
    const { store } = await temps.open();
    const schema = z.object({ name: z.string(), age: z.number().int() });
    const sets = [{ name: 'Alice' }, { age: 'forty' }];
    const model = new ScriptedModel(
      (request) => {
        const last = request.items.at(-1);
        if (last?.type === 'tool_result') return { text: last.isError ? 'sorry' : 'ok' };
        const set = sets.shift()!;
        return { toolCalls: [{ name: 'update_working_memory', arguments: { set }, callId: 'wm' }] };
      },
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'assistant',
      model,
      store,
      memory: { workingMemory: { schema } },
    });
    await agent.run('I am Alice', { sessionId: 's1', userId: 'alice' });
    const before = await aliceMemory(store);
    expect(before.working).toMatchObject({ content: { name: 'Alice' }, version: 1 });

    const result = await agent.run('I am forty', { sessionId: 's2', userId: 'alice' });
    expect(result.output).toBe('sorry');
    const refused = model.calls.at(-1)!.items.at(-1);
    expect(refused).toMatchObject({ type: 'tool_result', callId: 'wm', isError: true });
    expect(JSON.stringify(refused)).toContain('age');
    expect(await aliceMemory(store)).toEqual(before);
  });
});
