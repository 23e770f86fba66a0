import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import type { SessionCommit, SessionRecord } from '../../src/persistence/session-store.js';

/** The memory store, but a save can be made to throw before it returns a promise. */
class ThrowingStore extends MemorySessionStore {
  throwNext = false;
  override save(input: SessionCommit): Promise<SessionRecord> {
    if (this.throwNext) {
      this.throwNext = false;
      throw new Error('store broke before its promise');
    }
    return super.save(input);
  }
}

describe('a session save that throws instead of rejecting', () => {
  it('fails the run with that error (no wait left hanging); the next message runs on what was stored', async () => {
    const store = new ThrowingStore();
    const model = new ScriptedModel([{ text: 'one' }, { text: 'three' }]);
    const agent = new Agent({ name: 'sync-throw', model, store });
    const key = { sessionId: 's', userId: 'u' };
    expect((await agent.run('first', key)).output).toBe('one');
    store.throwNext = true; // the run's first save: the user's message, before the model call
    await expect(agent.run('second', key)).rejects.toThrow('store broke before its promise');
    expect((await agent.run('third', key)).output).toBe('three');
    const history = await store.readHistory(key, 0);
    expect(history.map((i) => (i.type === 'message' ? i.content : i.type))).toEqual([
      'first',
      'one',
      'third',
      'three',
    ]);
  });
});
