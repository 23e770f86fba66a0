import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle, type InspectorOptions } from '../../src/inspect.js';
import { Agent, openMemory } from '../../src/index.js';
import { FakeClock, ScriptedModel, scriptedEmbedder } from '../../src/testing.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 43, operators: a user's memory in the inspector, and what recall put in a request. */
const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

const T0 = Date.UTC(2026, 10, 20, 9, 30);

/**
 * Alice said she is allergic to peanuts in `s1` and asks about a snack in `s2` (recall brings
 * `s1` back); bob said the same in `b1`. Alice also has a fact in resource p7 and a working memory.
 */
async function recalledSetup() {
  const { store } = await temps.open();
  const clock = new FakeClock(T0);
  const embedder = scriptedEmbedder();
  const model = new ScriptedModel(() => ({ text: 'noted' }), { recordCalls: true });
  const agent = new Agent({ name: 'assistant', model, store, clock, memory: { embedder } });
  const said = await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'alice' });
  await agent.run('I am allergic to peanuts and my token is sk-SECRET', {
    sessionId: 'b1',
    userId: 'bob',
  });
  const memory = openMemory(store, { embedder, clock });
  await memory.remember({
    userId: 'alice',
    resource: 'p7',
    text: 'Launch on Friday',
    id: 'fact:p7',
  });
  await memory.updateWorkingMemory({ userId: 'alice' }, { append: 'Name: Alice' });
  clock.advance(3_600_000);
  const asked = await agent.run('Which peanuts snack is safe for me, allergic as I am?', {
    sessionId: 's2',
    userId: 'alice',
  });
  const start = async (options: Partial<InspectorOptions> = {}) => {
    const inspector = await startInspector({
      runtime: agent.runtimeFor(store),
      userId: 'alice',
      ...options,
    });
    open.push(inspector);
    return inspectorClient(inspector);
  };
  return { store, model, runId: asked.id, firstRunId: said.id, start };
}

interface MemoryAnswer {
  userId: string | null;
  scopes: {
    resource?: string;
    memories: number;
    workingMemory: { content: unknown; version: number } | null;
  }[];
  memories: { id: string; text: string; kind: string; sessionId?: string; at: number }[];
  nextCursor?: string;
}

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('inspector: memory across sessions', () => {
  it("serves the inspector's user's memory only: scopes with counts and working memory, pages of memories", async () => {
    const { start } = await recalledSetup();
    const alice = await start();
    const answer = await alice.get('/api/memory');
    expect(answer.status).toBe(200);
    const view = answer.json as MemoryAnswer;
    expect((await alice.get('/api/info')).json).toMatchObject({ memory: true });
    expect(view.userId).toBe('alice');
    expect(view.scopes).toEqual([
      {
        memories: 2,
        workingMemory: { content: 'Name: Alice', version: 1, updatedAt: T0 },
      },
      { resource: 'p7', memories: 1, workingMemory: null },
    ]);
    expect(view.memories.map((m) => m.id)).toEqual(['msg:s2:0', 'fact:p7', 'msg:s1:0']);
    expect(view.memories[2]).toMatchObject({
      kind: 'message',
      sessionId: 's1',
      text: 'I am allergic to peanuts',
      at: T0,
    });
    expect(answer.text).not.toContain('sk-SECRET');

    const p7 = (await alice.get('/api/memory?resource=p7')).json as MemoryAnswer;
    expect(p7.memories.map((m) => m.id)).toEqual(['fact:p7']);
    const first = (await alice.get('/api/memory?limit=2')).json as MemoryAnswer;
    expect(first.memories).toHaveLength(2);
    const rest = (
      await alice.get(`/api/memory?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`)
    ).json as MemoryAnswer;
    expect(rest.memories.map((m) => m.id)).toEqual(['msg:s1:0']);
    expect(rest.nextCursor).toBeUndefined();

    // a token scoped to alice never reads bob's memory
    const asBob = await alice.get('/api/memory?user=bob');
    expect(asBob.status).toBe(403);
    expect(errorCode(asBob.json)).toBe('FORBIDDEN_USER');
    expect(asBob.text).not.toContain('peanuts');
  });

  it("serves another user's memory only to an allUsers inspector, that user's only, redacted", async () => {
    const { start } = await recalledSetup();
    const any = await start({
      allUsers: true,
      redact: (t) => t.replaceAll('sk-SECRET', '[REDACTED]'),
    });
    const bob = await any.get('/api/memory?user=bob');
    expect(bob.status).toBe(200);
    const view = bob.json as MemoryAnswer;
    expect(view.userId).toBe('bob');
    expect(view.memories.map((m) => m.id)).toEqual(['msg:b1:0']);
    expect(view.memories[0]!.text).toBe('I am allergic to peanuts and my token is [REDACTED]');
    expect(bob.text).not.toContain('sk-SECRET');
    expect(bob.text).not.toContain('Alice');
    const nobody = (await any.get('/api/memory?user=carol')).json as MemoryAnswer;
    expect(nobody).toEqual({ userId: 'carol', scopes: [], memories: [] });
  });

  it('refuses bad queries with a 400, nothing stored changed', async () => {
    const { store, start } = await recalledSetup();
    const alice = await start();
    const before = await dumpBackend(store);
    for (const query of [
      'kind=thought',
      'limit=0',
      'limit=201',
      'limit=',
      'cursor=junk',
      'colour=red',
      'kind=fact&kind=message',
      `resource=${'x'.repeat(201)}`,
    ]) {
      const answer = await alice.get(`/api/memory?${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 400 });
      expect(errorCode(answer.json)).toBe('BAD_REQUEST');
    }
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('shows in "what the model saw" the memories recalled, their scores, and their message where it was sent', async () => {
    const { model, runId, firstRunId, start } = await recalledSetup();
    const alice = await start();
    const answer = await alice.get(`/api/sessions/s2/runs/${runId}/steps/0/request`);
    expect(answer.status).toBe(200);
    const view = answer.json as {
      items: {
        role?: string;
        position?: number;
        item: { type: string; role?: string; content?: unknown };
      }[];
      memory: {
        recalled: { id: string; score: number; sessionId?: string; at: number; text: string }[];
        recalledAt: number;
        workingMemory: { version: number };
      };
    };
    expect(view.memory.recalled).toEqual([
      expect.objectContaining({ id: 'msg:s1:0', kind: 'message', sessionId: 's1', at: T0 }),
    ]);
    expect(view.memory.recalled[0]!.score).toBeGreaterThan(0.3);
    expect(view.memory.workingMemory).toEqual({ version: 1 });
    // the items are what the model was sent: the memories' message at `recalledAt`
    const sent = model.calls.at(-1)!.items;
    expect(view.items.map((i) => i.item)).toEqual(sent);
    expect(view.items[view.memory.recalledAt]).toMatchObject({
      role: 'memory',
      item: { role: 'system' },
    });
    expect(String(view.items[view.memory.recalledAt]!.item.content)).toContain(
      'I am allergic to peanuts',
    );
    // a request that recalled nothing has no memory message
    const first = (await alice.get(`/api/sessions/s1/runs/${firstRunId}/steps/0/request`)).json as {
      items: { role?: string }[];
      memory: { recalled?: unknown };
    };
    expect(first.items.some((i) => i.role === 'memory')).toBe(false);
    expect(first.memory.recalled).toBeUndefined();
  });
});
