import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { Agent, tool } from '../src/index.js';
import { FakeClock, ScriptedModel } from '../src/testing.js';
import { sessionMachine } from '../src/machines/session-machine.js';
import { runMachine } from '../src/machines/run-machine.js';
import { persistingContextAsIs } from '../src/session-host/context-as-is.js';
import { TempStores } from './helpers/temp-store.js';

/**
 * The session actors a runtime creates persist their context as it is, without XState's walk
 * of it (session-host/context-as-is.ts): what they store must be what XState's own persistence
 * writes for the same snapshot, field for field and in the same order.
 */

interface Persisted {
  context: unknown;
}

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const pay = tool({
  name: 'pay',
  description: 'Pays',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: () => 'paid',
});

describe('session snapshots persisted with their context as is', () => {
  it("store exactly what XState's own persistence writes, with a run and its context nested", async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'payer',
      store,
      clock: new FakeClock(7_000_000),
      tools: [pay],
      model: new ScriptedModel([{ toolCalls: [{ name: 'pay', arguments: { to: 'bob' } }] }]),
    });
    const key = { sessionId: 'as-is', userId: 'ann' };
    const paused = await agent.run('pay bob', key);
    expect(paused.interruptions).toHaveLength(1);
    const stored = (await store.load(key)).snapshot as { children: Record<string, unknown> };
    expect(Object.keys(stored.children)).toEqual(['run']);
    const session = createActor(sessionMachine, { snapshot: stored as never, input: key });
    expect(JSON.stringify(stored)).toBe(JSON.stringify(session.getPersistedSnapshot()));
    // The same live snapshots, persisted by XState and as is: the same JSON, the same context.
    const run = session.getSnapshot().children['run']!;
    const check = (machine: AnyStateMachine, snapshot: unknown) => {
      const asIs = persistingContextAsIs(machine.provide({}));
      const theirs = machine.getPersistedSnapshot(snapshot as never) as unknown as Persisted;
      const ours = asIs.getPersistedSnapshot(snapshot as never) as unknown as Persisted;
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
      expect(ours.context).toBe((snapshot as Persisted).context);
    };
    check(sessionMachine, session.getSnapshot());
    check(runMachine, run.getSnapshot());
  });
});
