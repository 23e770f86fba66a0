import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { LeaseLostError, RunInProgressError } from '../../src/errors/session-errors.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { deferred, until } from './async.js';

const TTL = 10_000;
const key = { sessionId: 'leased', userId: 'u1' };
const opts = { sessionId: key.sessionId, userId: key.userId };

/** A model whose first answer waits for `gate`; counts its calls. */
function gatedModel(text: string, gate?: Promise<void>) {
  const calls = { count: 0 };
  const model = new ScriptedModel(async () => {
    calls.count += 1;
    if (gate) await gate;
    return { text };
  });
  return { model, calls };
}

/**
 * One writer per session through the runtime, on any lease-keeping store: two agents stand
 * for two processes (owners) sharing the store; the store's clock decides expiry.
 */
export function describeRuntimeLeases(
  name: string,
  makeStore: (clock: FakeClock) => Promise<{ store: SessionStore; cleanup(): Promise<void> }>,
): void {
  describe(`${name}: runtime leases`, () => {
    let storeClock: FakeClock;
    let handle: { store: SessionStore; cleanup(): Promise<void> };
    beforeEach(async () => {
      storeClock = new FakeClock();
      handle = await makeStore(storeClock);
    });
    afterEach(async () => handle.cleanup());
    /**
     * The app's agent in one process: its own lease owner id, model and clock (one name in
     * every process: only the agent that runs a session's run may continue it).
     */
    const owner = (name: string, model: ScriptedModel, clock: FakeClock) =>
      new Agent({
        name: 'leased',
        model,
        store: handle.store,
        clock,
        lease: { owner: `owner-${name}`, ttlMs: TTL },
      });

    it('another owner gets RunInProgressError before any model call while the lease lives', async () => {
      const gate = deferred();
      const a = gatedModel('from a', gate.promise);
      const b = gatedModel('from b');
      const agentA = owner('a', a.model, storeClock);
      const agentB = owner('b', b.model, storeClock);
      const running = agentA.run('hello', opts);
      await until(() => a.calls.count === 1);
      const refused = agentB.run('me too', opts);
      await expect(refused).rejects.toBeInstanceOf(RunInProgressError);
      await expect(refused).rejects.toMatchObject({ elsewhere: true, sessionId: key.sessionId });
      expect(b.calls.count).toBe(0);
      // A renews while it runs: past the first TTL, B is still refused.
      storeClock.advance(TTL / 2);
      await until(() => storeClock.pendingSleepers > 0);
      storeClock.advance(TTL / 2 + 1);
      await expect(agentB.run('still me', opts)).rejects.toBeInstanceOf(RunInProgressError);
      gate.resolve();
      await expect(running).resolves.toMatchObject({ output: 'from a' });
      // Released when the run returned: B runs now.
      await expect(agentB.run('now me', opts)).resolves.toMatchObject({ output: 'from b' });
      expect(b.calls.count).toBe(1);
    });

    it('a dead owner’s run is recovered by another once its lease expires; its late write is fenced', async () => {
      const gate = deferred();
      const a = gatedModel('late a', gate.promise);
      const b = gatedModel('from b');
      // A's own clock never moves: A stops renewing, as a hung or cut-off process would.
      const agentA = owner('a', a.model, new FakeClock(storeClock.now()));
      const agentB = owner('b', b.model, storeClock);
      const running = agentA.run('hello', opts);
      await until(() => a.calls.count === 1);
      const runtimeB = agentB.runtimeFor(handle.store);
      await expect(runtimeB.recover({ olderThan: 0, userId: key.userId })).resolves.toEqual([]);
      storeClock.advance(TTL + 1);
      // Another user's recovery sees nothing of u1.
      await expect(runtimeB.recover({ olderThan: 0, userId: 'u2' })).resolves.toEqual([]);
      await expect(runtimeB.recover({ olderThan: TTL, userId: key.userId })).resolves.toEqual([]);
      const recovered = await runtimeB.recover({ olderThan: 0, userId: key.userId });
      expect(recovered).toEqual([
        { key, result: expect.objectContaining({ output: 'from b' }) as unknown },
      ]);
      expect(b.calls.count).toBe(1);
      gate.resolve();
      const late = await running.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(late).toBeInstanceOf(LeaseLostError);
      const history = await handle.store.readHistory(key);
      expect(history.map((item) => ('content' in item ? item.content : item.type))).toEqual([
        'hello',
        'from b',
      ]);
      await expect(runtimeB.recover({ olderThan: 0, userId: key.userId })).resolves.toEqual([]);
      await expect(runtimeB.recover({ olderThan: -1 })).rejects.toBeInstanceOf(TypeError);
      await expect(runtimeB.recover({ olderThan: 0, usrId: 'x' } as never)).rejects.toThrow(
        /did you mean "userId"/,
      );
    });
  });
}
