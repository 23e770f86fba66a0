import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  MemoryConflictError,
  contentText,
  openMemory,
  type ModelRequest,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { deferred } from '../helpers/async.js';
import { TempStores } from '../helpers/temp-store.js';
import { wrappedMethod } from '../helpers/wrapped-method.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** The model appends the user's message to the working memory, then says `ok`. */
function appendSaid(request: ModelRequest): ScriptedResponse {
  const last = request.items.at(-1);
  if (last?.type !== 'message') return { text: 'ok' };
  const append = contentText(last.content);
  return { toolCalls: [{ name: 'update_working_memory', arguments: { append }, callId: 'wm' }] };
}

/**
 * The store with its first `writers` working-memory writes held until all of them arrived (each
 * read version 0 before), so exactly one wins and the others conflict; the conflicts are
 * counted (a fake passed in).
 */
function meetingWrites(store: SessionStore, writers: number) {
  const met = deferred();
  let arrived = 0;
  const seen = { conflicts: 0 };
  const wrapped = wrappedMethod(store, 'writeWorkingMemory', (write) => async (...args) => {
    if (arrived < writers) {
      if (++arrived === writers) met.resolve();
      await met.promise;
    }
    try {
      return await write(...args);
    } catch (error) {
      if (error instanceof MemoryConflictError) seen.conflicts++;
      throw error;
    }
  });
  return { store: wrapped, seen };
}

describe('working memory: sessions of one user updating it at once', () => {
  it('two sessions writing over the same version both land (the loser applies its patch again)', async () => {
    const { store } = await temps.open();
    const { store: meeting, seen } = meetingWrites(store, 2);
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedModel(appendSaid),
      store: meeting,
      memory: {},
    });
    const results = await Promise.all([
      agent.run('Lives in Oslo', { sessionId: 's1', userId: 'alice' }),
      agent.run('Works nights', { sessionId: 's2', userId: 'alice' }),
    ]);
    expect(results.map((r) => r.output)).toEqual(['ok', 'ok']);
    expect(seen.conflicts).toBe(1);
    const doc = await openMemory(store).workingMemory({ userId: 'alice' });
    expect(doc?.version).toBe(2);
    expect(String(doc?.content).split('\n').sort()).toEqual(['Lives in Oslo', 'Works nights']);
  });

  it('eight sessions at once: every line present once, version 8', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedModel(appendSaid),
      store,
      memory: {},
    });
    const lines = Array.from({ length: 8 }, (_, i) => `line ${i}`);
    await Promise.all(
      lines.map((line, i) => agent.run(line, { sessionId: `s${i}`, userId: 'alice' })),
    );
    const doc = await openMemory(store).workingMemory({ userId: 'alice' });
    expect(doc?.version).toBe(8);
    expect(String(doc?.content).split('\n').sort()).toEqual(lines);
    // another user's document is their own
    expect(await openMemory(store).workingMemory({ userId: 'bob' })).toBeUndefined();
  });
});
