import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { newWorkflow } from '../../src/store-contract/contract-fixtures.js';

/**
 * A workflow instance is a record of the same store as the sessions (`workflow` set), with a
 * lease and a message inbox of its own: a session runtime's recovery never takes it for a
 * session (its host recovers it), whatever its lease or queued events say.
 */
describe('recover() beside workflow instances', () => {
  it('leaves an instance with an expired lease and queued events alone', async () => {
    const clock = new FakeClock();
    const store = new MemorySessionStore({ clock });
    const order = { sessionId: 'workflow:o1', userId: 'alice' };
    const created = await store.create(newWorkflow('o1', 'alice'));
    // A host that died while it held the instance, with an event sent from elsewhere queued.
    await store.acquireLease(order, 'host-1', 1_000);
    const queued = await store.queueMessage({
      key: order,
      kind: 'queue',
      items: [],
      options: { event: { type: 'PAY' }, eventId: 'e1' },
      at: clock.now(),
    });
    clock.advance(60_000);
    const model = new ScriptedModel(() => ({ text: 'never called' }));
    const agent = new Agent({ name: 'a', model, store, clock });
    const recovered = await agent.runtimeFor(store).recover({ olderThan: 0, userId: 'alice' });
    expect(recovered).toEqual([]);
    expect(await store.queuedMessages(order)).toEqual([queued]);
    expect(await store.load(order)).toEqual(created);
    expect(await store.readHistory(order)).toEqual([]);
    await store.close();
  });
});
