import { describe, expect, it } from 'vitest';
import { createActor, waitFor, type InspectionEvent } from 'xstate';
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { runMachine } from '../../src/machines/run-machine.js';
import { sessionMachine } from '../../src/machines/session-machine.js';
import type { ModelStepInput, ModelStepOutput } from '../../src/machines/step-actor-io.js';
import { answer, callTools, fakeActors, runInput } from '../helpers/run-machine-fakes.js';

/**
 * How many microsteps (XState transitions: each one copies the snapshot, and its assign the
 * context) the session and run machines take for one message, counted with XState's `inspect`.
 * Routing happens on the transition that takes an event in (guarded `onDone` targets), never in
 * a transient state of its own (docs/design/performance.md, item 5), so each count below is the
 * design's: one microstep per event the machines wait for, plus the run's start.
 */

/** The microsteps of one message, by actor: the session's and the run's (steps have none). */
async function microstepsOf(
  model: (input: ModelStepInput) => ModelStepOutput,
  approve: string[] = [],
  decide?: (send: (event: { type: 'APPROVE'; callId: string }) => void) => void,
) {
  const fakes = fakeActors({ model, approve });
  const machine = sessionMachine().provide({
    actors: { run: runMachine().provide({ actors: fakes.actors }) },
  });
  const steps: string[] = [];
  const actor = createActor(machine, {
    input: { sessionId: 'session-1' },
    inspect: (e: InspectionEvent) => {
      if (e.type !== '@xstate.microstep') return;
      const who = e.actorRef === actor ? 'session' : 'run';
      const { value } = e.snapshot as { value?: unknown };
      steps.push(`${who}: ${e.event.type} -> ${JSON.stringify(value)}`);
    },
  });
  actor.start();
  actor.send({ type: 'SEND_MESSAGE', run: runInput() });
  if (decide) {
    const run = () => actor.getSnapshot().children.run!;
    await waitFor(run(), (s) => s.value === 'awaitingApproval');
    decide((event) => actor.send(event));
  }
  await waitFor(actor, (s) => s.matches({ active: 'idle' }));
  const message = [...steps]; // not the session's stop below (the host's business, not a message's)
  actor.stop();
  return {
    session: message.filter((s) => s.startsWith('session: ')).length,
    run: message.filter((s) => s.startsWith('run: ')).length,
    steps: message,
  };
}

describe('microsteps per message (the machines alone, fake step actors)', () => {
  it('a tool-call message (model, one tool call, model) takes 6 microsteps', async () => {
    const counts = await microstepsOf(({ turn }) =>
      turn === 0 ? callTools(0, ['search']) : answer('done'),
    );
    // The session: SEND_MESSAGE starts the run, the run's onDone ends it: 2.
    // The run: its start (turnStart's checks go on to modelCall), the first answer goes straight
    // to `tools`, the call's end straight back to `modelCall`, the final answer to `completed`:
    // 4. (Before item 5 the run took 9: afterModel and approvals.routing after the first answer,
    // tools -> turnStart -> modelCall after the call, afterModel after the final answer.)
    // (The run's start is reported first: it happens inside the session's SEND_MESSAGE step.)
    expect(counts.steps).toEqual([
      'run: xstate.init -> "modelCall"',
      'session: SEND_MESSAGE -> {"active":"running"}',
      'run: xstate.done.actor.0.run.modelCall -> "tools"',
      'run: xstate.done.actor.tool-1 -> "modelCall"',
      'run: xstate.done.actor.0.run.modelCall -> "completed"',
      'session: xstate.done.actor.run -> {"active":"idle"}',
    ]);
    expect(counts.session + counts.run).toBe(2 + 4);
  });

  it('an answer without tools takes 4: start, the run start, the answer, the run end', async () => {
    const counts = await microstepsOf(() => answer('hello'));
    expect(counts).toMatchObject({ session: 2, run: 2 });
  });

  it('a call that needs approval: one microstep per answer, check, decision and call', async () => {
    const counts = await microstepsOf(
      ({ turn }) => (turn === 0 ? callTools(0, ['pay'], ['pay']) : answer('paid')),
      ['pay'],
      (send) => send({ type: 'APPROVE', callId: 'pay-t0' }),
    );
    // The run: start; answer -> approvals.checking; check -> awaitingApproval; APPROVE (the
    // decision taken in) and its eventless step to `tools` (the `always` that also lets a held
    // or timed-out run go on); the call's end -> modelCall; final answer -> completed: 7.
    // The session: SEND_MESSAGE, the APPROVE it relays to the run, the run's end: 3.
    expect(counts.steps.filter((s) => s.startsWith('run: '))).toEqual([
      'run: xstate.init -> "modelCall"',
      'run: xstate.done.actor.0.run.modelCall -> {"approvals":"checking"}',
      'run: xstate.done.actor.0.run.approvals.checking -> "awaitingApproval"',
      'run: APPROVE -> "awaitingApproval"',
      'run: APPROVE -> "tools"',
      'run: xstate.done.actor.tool-1 -> "modelCall"',
      'run: xstate.done.actor.0.run.modelCall -> "completed"',
    ]);
    expect(counts).toMatchObject({ session: 3, run: 7 });
  });
});

describe('microsteps per message with the runtime (real step actors, LevelDB)', () => {
  it("a tool-call message takes the machines' 6: each step's start is noted as it starts", async () => {
    const temps = new TempStores();
    try {
      const temp = await temps.open();
      const clock = new FakeClock(1_000_000);
      const search = tool({
        name: 'search',
        description: 'Finds',
        parameters: z.object({}),
        execute: () => 'found',
      });
      const model = new ScriptedModel([
        { toolCalls: [{ name: 'search', arguments: {} }] },
        { text: 'done' },
      ]);
      const microsteps: string[] = [];
      const agent = new Agent({
        name: 't',
        model,
        tools: [search],
        store: temp.store,
        clock,
        inspect: (e) => {
          if (e.type === '@xstate.microstep') microsteps.push(e.event.type);
        },
      });
      const key = { sessionId: 'steps', userId: 'ann' };
      const result = await agent.run('find it', key);
      expect(result.output).toBe('done');
      // The same 6 as the machines alone above: the run notes each step's start (when, its
      // restarts) in the transition that starts it. Before, each of the 3 steps sent its own
      // STEP_STARTED, a microstep (and a snapshot the host heard) more: 9.
      expect(microsteps).not.toContain('STEP_STARTED');
      expect(microsteps).toHaveLength(6);
    } finally {
      await temps.cleanupAll();
    }
  });
});
