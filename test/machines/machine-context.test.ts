import { afterEach, describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { contextPatch } from '../../src/machines/context-patch.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * What the run machine's assigns copy (docs/design/performance.md, "Done since (fewer context
 * copies)"): each step's start is noted by the assign of the transition that starts it, not by
 * one of its own, and no assign adds a key set to `undefined` that the context never held (XState
 * copies the whole context at every assign, and a key once there stays in every later copy).
 */

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const pay = tool({
  name: 'pay',
  description: 'Pays',
  parameters: z.object({}),
  needsApproval: true,
  execute: () => 'paid',
});
const look = tool({
  name: 'look',
  description: 'Looks',
  parameters: z.object({}),
  execute: () => 'seen',
});

/** The run actor's snapshots' contexts and the events the machines took, of `agent`'s runs. */
function watched() {
  const contexts: Record<string, unknown>[] = [];
  const events: string[] = [];
  const inspect = (e: InspectionEvent) => {
    if (e.type === '@xstate.event' && !e.event.type.startsWith('xstate.'))
      events.push(e.event.type);
    if (e.type === '@xstate.snapshot' && (e.actorRef as { id?: string }).id === 'run') {
      contexts.push((e.snapshot as unknown as { context: Record<string, unknown> }).context);
    }
  };
  return { contexts, events, inspect };
}

describe("the run machine's context copies", () => {
  it('notes every step start in the transition that starts it: guardrails, an approval check, tool calls, model calls', async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(5_000_000);
    const seen = watched();
    const agent = new Agent({
      name: 'checked',
      store,
      clock,
      tools: [pay, look],
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: 'pay', arguments: {} },
            { name: 'look', arguments: {} },
          ],
        },
        { text: 'done' },
      ]),
      inputGuardrails: [{ name: 'in', check: () => ({ tripwire: false }) }],
      outputGuardrails: [{ name: 'out', check: () => ({ tripwire: false }) }],
      inspect: seen.inspect,
    });
    const key = { sessionId: 'noted', userId: 'ann' };
    const paused = await agent.run('hi', key);
    paused.state.approve(paused.interruptions[0]!.callId);
    const done = await agent.resume(paused.state);
    expect(done.output).toBe('done');
    // A step whose start its run had not noted sends STEP_STARTED as it starts.
    expect(seen.events).toEqual(['SEND_MESSAGE', 'APPROVE', 'APPROVE']);
    const journal = await store.readRunJournal(key, done.id);
    expect(journal.map((e) => e.kind)).toEqual([
      'guardrail',
      'model',
      'tool', // the calls' steps come first, then the approval check's (by step number)
      'tool',
      'approval',
      'model',
      'guardrail',
    ]);
    for (const entry of journal) expect(entry.startedAt).toBe(5_000_000);
  });

  it('never holds a key set to undefined that it did not hold before', async () => {
    const { store } = await temps.open();
    const seen = watched();
    const agent = new Agent({
      name: 't',
      store,
      tools: [look],
      model: new ScriptedModel([{ toolCalls: [{ name: 'look', arguments: {} }] }, { text: 'ok' }]),
      inspect: seen.inspect,
    });
    expect((await agent.run('look', { sessionId: 'keys', userId: 'ann' })).output).toBe('ok');
    expect(seen.contexts.length).toBeGreaterThan(3);
    const held = new Set<string>();
    for (const context of seen.contexts) {
      for (const [k, v] of Object.entries(context)) {
        if (v !== undefined) held.add(k);
        else expect(held, `key ${k}`).toContain(k);
      }
    }
  });

  it('contextPatch drops only what would add an unset key, and keeps a cleared one', () => {
    const context: { a?: number | undefined; b?: number | undefined; c?: number } = { a: 1 };
    const patch = { a: undefined, b: undefined, c: 2 };
    expect(contextPatch(context, patch)).toStrictEqual({ a: undefined, c: 2 });
    expect(patch).toStrictEqual({ a: undefined, b: undefined, c: 2 }); // not changed
    const same = { a: 2, c: 3 };
    expect(contextPatch(context, same)).toBe(same);
  });
});
