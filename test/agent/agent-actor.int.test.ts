import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { assign, createActor, sendTo, setup, waitFor, type AnyActorRef } from 'xstate';
import {
  Agent,
  LevelSessionStore,
  RunCancelledError,
  tool,
  type Model,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { assistantScript, buildCli, runCli, writeAgentModule } from '../helpers/cli-fixtures.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A refund agent: it refunds the order (a call a human approves), then confirms. */
function refundAgent(store: SessionStore, refunds: string[] = []) {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => {
      refunds.push(order);
      return `refunded ${order}`;
    },
  });
  const model = new ScriptedModel(
    (request) => {
      const result = lastResult(request);
      return result === undefined
        ? { toolCalls: [{ name: 'refund', arguments: { order: 'o-1' } }] }
        : { text: `Done: ${result}` };
    },
    { recordCalls: true },
  );
  const agent = new Agent({ name: 'refunds', model, tools: [refund], store });
  return { agent, model, refunds };
}

/**
 * The app's own order machine: it asks the agent in `assisting` (in its own `waiting` state
 * while the agent waits for an approval), then ends in `resolved`.
 */
function orderMachine(agent: Agent, input = 'Please refund order o-1') {
  return setup({
    types: {
      context: {} as { answer: unknown },
      events: {} as { type: 'APPROVE'; callId: string },
    },
    actors: { assistant: agent.asActor() },
  }).createMachine({
    id: 'order',
    context: { answer: undefined },
    initial: 'assisting',
    states: {
      assisting: {
        invoke: {
          id: 'assistant',
          src: 'assistant',
          input: { input, sessionId: 'order-o-1', userId: 'erin' },
          onSnapshot: [
            {
              guard: ({ event }) => event.snapshot.context.phase === 'awaitingApproval',
              target: '.waiting',
            },
            {
              guard: ({ event }) => event.snapshot.context.phase === 'running',
              target: '.working',
            },
          ],
          onDone: {
            target: 'resolved',
            actions: assign({ answer: ({ event }) => event.output.output }),
          },
          onError: 'failed',
        },
        initial: 'working',
        states: { working: {}, waiting: {} },
        on: {
          APPROVE: {
            actions: sendTo('assistant', ({ event }) => ({
              type: 'agent.approve' as const,
              callId: event.callId,
            })),
          },
        },
      },
      resolved: { type: 'final' },
      failed: { type: 'final' },
    },
  });
}

const assistantOf = (app: AnyActorRef) =>
  (app.getSnapshot() as { children: { assistant?: AnyActorRef } }).children.assistant;

describe('agent.asActor', () => {
  it("runs inside an app's machine, shows its approval on the app's snapshot, and is picked up from the app's persisted snapshot after a reopen", async () => {
    const temp = await temps.open();
    const first = refundAgent(temp.store);
    const app = createActor(orderMachine(first.agent)).start();
    const assistant = assistantOf(app)!;
    await waitFor(assistant, (s: { context: { phase: string } }) => s.context.phase !== 'running');
    const waiting = assistant.getSnapshot() as {
      context: { phase: string; interruptions: { callId: string; toolName: string }[] };
    };
    expect(waiting.context.phase).toBe('awaitingApproval');
    expect(waiting.context.interruptions).toMatchObject([{ toolName: 'refund' }]);
    // the app's machine is in its own state for it (`invoke.onSnapshot` on `context.phase`)
    expect(app.getSnapshot().value).toEqual({ assisting: 'waiting' });
    const persisted = JSON.parse(JSON.stringify(app.getPersistedSnapshot())) as object;
    // the agent's state nests in the app's persisted snapshot
    expect(JSON.stringify(persisted)).toContain('"awaitingApproval"');
    app.stop();
    await temp.store.close();

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = refundAgent(store);
    const restored = createActor(orderMachine(second.agent), { snapshot: persisted as never });
    restored.start();
    restored.send({ type: 'APPROVE', callId: waiting.context.interruptions[0]!.callId });
    const done = await waitFor(restored, (s) => s.status === 'done');
    expect(done.value).toBe('resolved');
    expect(done.context.answer).toBe('Done: refunded o-1');
    expect(second.refunds).toEqual(['o-1']);
    // the journaled model call that asked for the refund did not run again
    expect(second.model.calls).toHaveLength(1);
  });

  it('outputs the run and emits its stream events; a snapshot taken mid-run restores to the finished result without running again', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel(
      (request) =>
        lastResult(request) === undefined
          ? { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }
          : { text: `It is ${lastResult(request)}.` },
      { recordCalls: true },
    );
    const add = tool({
      name: 'add',
      description: 'Adds',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const agent = new Agent({ name: 'calc', model, tools: [add], store });
    const actor = createActor(agent.asActor(), {
      input: { input: 'What is 2 + 3?', sessionId: 'calc-1' },
    });
    const events: string[] = [];
    actor.on('*', (e: { type: string }) => events.push(e.type));
    actor.start();
    const early = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as object;
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({ output: 'It is 5.', turns: 2, sessionId: 'calc-1' });
    expect(events).toEqual(expect.arrayContaining(['tool_call_started', 'tool_call_finished']));
    expect(model.calls).toHaveLength(2);

    // restored from the snapshot taken before the run ended: it finds the run finished
    const again = createActor(agent.asActor(), {
      snapshot: early as never,
      input: { input: 'What is 2 + 3?' },
    }).start();
    const redone = await waitFor(again, (s) => s.status === 'done');
    expect(redone.output).toMatchObject({ output: 'It is 5.', runId: done.output!.runId });
    expect(model.calls).toHaveLength(2);
  });

  it('emits every stream event of its run: state_entered, approval_requested (typed), the step events and run_finished', async () => {
    const { store } = await temps.open();
    const { agent } = refundAgent(store);
    const actor = createActor(agent.asActor(), {
      input: { input: 'Please refund order o-1', sessionId: 'events-1' },
    });
    const types: string[] = [];
    actor.on('*', (e: { type: string }) => types.push(e.type));
    const requested: string[] = [];
    actor.on('approval_requested', (e) => {
      requested.push(`${e.interruption.toolName} ${e.interruption.callId} ${e.runId}`);
    });
    const finished: unknown[] = [];
    actor.on('run_finished', (e) => finished.push(e.result.interrupted || e.result.output));
    actor.start();
    const waiting = await waitFor(actor, (s) => s.context.phase === 'awaitingApproval');
    const { callId } = waiting.context.interruptions[0]!;
    expect(requested).toEqual([`refund ${callId} ${waiting.context.runId}`]);
    expect(finished).toEqual([true]);
    expect(types).toContain('state_entered');
    expect(types.filter((t) => t === 'approval_requested')).toHaveLength(1);

    actor.send({ type: 'agent.approve', callId });
    await waitFor(actor, (s) => s.status === 'done');
    expect(types).toEqual(expect.arrayContaining(['tool_call_started', 'tool_call_finished']));
    expect(requested).toHaveLength(1);
    expect(finished).toEqual([true, 'Done: refunded o-1']);
    expect(types.at(-1)).toBe('run_finished');
  });

  it('restored after the CLI approved and resumed its run while the app was down, it reaches its final state with no event sent', async () => {
    const cli = await buildCli();
    temps.defer(() => cli.cleanup());
    const temp = await temps.open();
    const local: string[] = [];
    /** The `assistant` agent the CLI's module also defines, whose `danger` call waits. */
    const assistant = (store: SessionStore, model: Model = assistantScript()) => {
      const danger = tool({
        name: 'danger',
        description: 'Needs approval',
        parameters: z.object({ target: z.string() }),
        needsApproval: true,
        execute: ({ target }) => {
          local.push(target);
          return `done: ${target}`;
        },
      });
      return new Agent({ name: 'assistant', model, tools: [danger], store });
    };
    const app = createActor(orderMachine(assistant(temp.store), 'danger prod')).start();
    await waitFor(app, (s) => s.matches({ assisting: 'waiting' }));
    const persisted = JSON.parse(JSON.stringify(app.getPersistedSnapshot())) as object;
    app.stop();
    await temp.store.close();

    // the app is down: an operator approves and resumes the run with the real CLI
    const marker = join(temp.folder, 'ran.txt');
    const module = await writeAgentModule(cli, join(cli.dir, 'app'), marker);
    const as = (...args: string[]) => runCli(cli, [...args, '--user', 'erin', '--db', temp.path]);
    expect(await as('approve', 'order-o-1', 'c-prod')).toMatchObject({ code: 0 });
    const resumed = await as('resume', 'order-o-1', '--agent', module, '--json');
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ output: 'after done: prod' });
    expect(readFileSync(marker, 'utf8')).toBe('prod\n');

    // a fresh app actor from the persisted snapshot finishes by itself
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const model = new ScriptedModel(() => ({ text: 'never asked' }), { recordCalls: true });
    const restored = createActor(orderMachine(assistant(store, model), 'danger prod'), {
      snapshot: persisted as never,
    });
    expect(restored.getSnapshot().value).toEqual({ assisting: 'waiting' });
    restored.start();
    // bounded, so a restored actor that stays waiting fails here rather than at the test's timeout
    const done = await waitFor(restored, (s) => s.status !== 'active', { timeout: 60_000 });
    expect(done.value).toBe('resolved');
    expect(done.context.answer).toBe('after done: prod');
    expect(model.calls).toHaveLength(0);
    expect(local).toEqual([]);
  }, 240_000);

  it('restored after its run was cancelled elsewhere, it fails with RunCancelledError and the app takes its onError, with no event sent', async () => {
    const temp = await temps.open();
    const app = createActor(orderMachine(refundAgent(temp.store).agent)).start();
    await waitFor(app, (s) => s.matches({ assisting: 'waiting' }));
    const persisted = JSON.parse(JSON.stringify(app.getPersistedSnapshot())) as object;
    app.stop();
    await temp.store.close();

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const { agent, refunds } = refundAgent(store);
    await agent.cancel('order-o-1', { userId: 'erin' });
    const restored = createActor(orderMachine(agent), { snapshot: persisted as never });
    const child = assistantOf(restored)!;
    restored.start();
    const done = await waitFor(restored, (s) => s.status !== 'active', { timeout: 60_000 });
    expect(done.value).toBe('failed');
    expect((child.getSnapshot() as { error: unknown }).error).toMatchObject({
      name: 'RunCancelledError',
      code: 'RUN_CANCELLED',
    });
    // What the embedding guide's `onError` guard tests: the error is a RunCancelledError.
    expect((child.getSnapshot() as { error: unknown }).error).toBeInstanceOf(RunCancelledError);
    expect(refunds).toEqual([]);
  });
});
