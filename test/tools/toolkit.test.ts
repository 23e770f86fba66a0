import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunContext, getRunContext, tool, toolkit, type ToolResultItem } from '../../src/index.js';
import { Agent } from '../../src/agent/agent.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { modelFailure } from '../helpers/model-failure.js';

/** A toolkit whose tools are bound to the user of the context it is created for. */
function notesToolkit() {
  const stats = {
    created: [] as (string | undefined)[],
    closed: [] as (string | undefined)[],
    createdIn: [] as RunContext[],
  };
  const kit = toolkit({
    name: 'notes',
    create(ctx) {
      const owner = ctx.userId;
      stats.created.push(owner);
      stats.createdIn.push(getRunContext());
      const notes: string[] = [];
      return {
        instructions: `You manage the notes of ${owner}.`,
        tools: [
          tool({
            name: 'add_note',
            description: 'Stores a note for the current user',
            parameters: z.object({ text: z.string() }),
            execute: ({ text }) => {
              notes.push(text);
              return { owner, count: notes.length };
            },
          }),
        ],
        close: () => {
          stats.closed.push(owner);
        },
      };
    },
  });
  return { kit, stats };
}

/** Each run: call add_note with the user's message, then answer with the tool's output. */
function noteTakingModel() {
  return new ScriptedModel(
    (request) => {
      const last = request.items.at(-1);
      if (last?.type === 'message' && last.role === 'user') {
        return { toolCalls: [{ name: 'add_note', arguments: { text: last.content } }] };
      }
      return { text: (last as ToolResultItem).output };
    },
    { recordCalls: true },
  );
}

let store: MemorySessionStore;
afterEach(async () => {
  await store?.close();
});

describe('toolkits', () => {
  it('createSession builds the toolkit once for several runs and close() releases it', async () => {
    store = new MemorySessionStore();
    const { kit, stats } = notesToolkit();
    const model = noteTakingModel();
    const agent = new Agent({
      name: 'notes',
      instructions: 'Be brief.',
      model,
      toolkits: [kit],
      store,
    });

    const session = await agent.createSession({ userId: 'alice', metadata: { team: 'a' } });
    expect(stats.created).toEqual(['alice']);
    expect(stats.createdIn[0]?.userId).toBe('alice');
    expect(stats.createdIn[0]?.get('team')).toBe('a');

    const first = await session.run('buy milk');
    const second = await session.run('call bob');
    expect(first.output).toBe('{"owner":"alice","count":1}');
    // Same toolkit instance across runs: its state carried over.
    expect(second.output).toBe('{"owner":"alice","count":2}');
    expect(first.sessionId).toBe(session.sessionId);
    expect(second.sessionId).toBe(session.sessionId);
    expect(stats.created).toEqual(['alice']);
    expect(stats.closed).toEqual([]);

    // The model sees the agent's and the toolkit's instructions and the toolkit's tool.
    for (const call of model.calls) {
      expect(call.instructions).toBe('Be brief.\n\nYou manage the notes of alice.');
      expect(call.tools.map((t) => t.name)).toEqual(['add_note']);
    }
    // The second run continues the conversation of the first.
    const lastRequest = model.calls.at(-1)!;
    expect(
      lastRequest.items
        .filter((i) => i.type === 'message' && i.role === 'user')
        .map((i) => i.content),
    ).toEqual(['buy milk', 'call bob']);

    await session.close();
    expect(stats.closed).toEqual(['alice']);
    await expect(session.run('again')).rejects.toThrow(/closed/);
    await session.close();
    expect(stats.closed).toEqual(['alice']);
    expect(stats.created).toEqual(['alice']);
  });

  it('keeps sessions of different users apart', async () => {
    store = new MemorySessionStore();
    const { kit, stats } = notesToolkit();
    const agent = new Agent({ name: 'notes', model: noteTakingModel(), toolkits: [kit], store });
    const alice = await agent.createSession({ userId: 'alice' });
    const bob = await agent.createSession({ userId: 'bob' });
    const [a, b] = await Promise.all([alice.run('a1'), bob.run('b1')]);
    expect(a.output).toBe('{"owner":"alice","count":1}');
    expect(b.output).toBe('{"owner":"bob","count":1}');
    expect(a.userId).toBe('alice');
    expect(b.userId).toBe('bob');
    await Promise.all([alice.close(), bob.close()]);
    expect([...stats.created].sort()).toEqual(['alice', 'bob']);
    expect([...stats.closed].sort()).toEqual(['alice', 'bob']);
  });

  it('agent.run creates the toolkit for each run and closes it when the run ends', async () => {
    store = new MemorySessionStore();
    const { kit, stats } = notesToolkit();
    const model = noteTakingModel();
    const agent = new Agent({ name: 'notes', model, toolkits: [kit], store });

    const first = await agent.run('one', { sessionId: 's1', userId: 'carol' });
    expect(stats.created).toEqual(['carol']);
    expect(stats.closed).toEqual(['carol']);
    const second = await agent.run('two', { sessionId: 's1', userId: 'carol' });
    // A fresh instance per run: the in-memory count started again.
    expect(first.output).toBe('{"owner":"carol","count":1}');
    expect(second.output).toBe('{"owner":"carol","count":1}');
    expect(stats.created).toEqual(['carol', 'carol']);
    expect(stats.closed).toEqual(['carol', 'carol']);
    expect(model.calls[0]?.instructions).toBe('You manage the notes of carol.');
  });

  it('closes the toolkit even when the model call fails', async () => {
    store = new MemorySessionStore();
    const { kit, stats } = notesToolkit();
    const model = new ScriptedModel([{ error: 'model down' }], { recordCalls: true });
    const agent = new Agent({ name: 'notes', model, toolkits: [kit], store });
    expect(await modelFailure(agent.run('x', { userId: 'dave' }))).toMatchObject({
      code: 'MODEL_ERROR',
    });
    expect(stats.created).toEqual(['dave']);
    expect(stats.closed).toEqual(['dave']);
  });
});
