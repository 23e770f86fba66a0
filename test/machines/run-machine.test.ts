import { describe, expect, it } from 'vitest';
import { createActor, waitFor, type SnapshotFrom } from 'xstate';
import { ModelError, UnpricedModelError } from '../../src/errors/run-errors.js';
import { runMachine } from '../../src/machines/run-machine.js';
import type { ModelStepOutput, ToolCallOutput } from '../../src/machines/step-actor-io.js';
import { deferred, type Deferred } from '../helpers/async.js';
import {
  answer,
  callTools,
  fakeActors,
  isPlainJson,
  runInput,
  type FakeOptions,
} from '../helpers/run-machine-fakes.js';

type RunSnapshot = SnapshotFrom<ReturnType<typeof runMachine>>;

function start(options: FakeOptions, input = runInput(), snapshot?: unknown) {
  const fakes = fakeActors(options);
  const machine = runMachine().provide({ actors: fakes.actors });
  const actor = snapshot
    ? createActor(machine, { snapshot: snapshot as RunSnapshot, input })
    : createActor(machine, { input });
  const snapshots: RunSnapshot[] = [];
  actor.subscribe((s) => snapshots.push(s));
  actor.start();
  return { actor, log: fakes.log, snapshots };
}

const stateOf = (s: RunSnapshot) =>
  typeof s.value === 'string' ? s.value : JSON.stringify(s.value);
const settled = (s: RunSnapshot) =>
  s.status !== 'active' || ['interrupted', 'awaitingApproval'].includes(stateOf(s));
const persisted = (actor: { getPersistedSnapshot(): unknown }) =>
  JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as unknown;

describe('run machine (pure, with fake actors)', () => {
  it('completes with the model output when it answers without tools', async () => {
    const { actor, log } = start({ model: () => answer('hello') });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('completed');
    expect(done.output).toMatchObject({
      status: 'completed',
      runId: 'run-1',
      output: 'hello',
      turn: 1,
      usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, costUsd: 0.001 },
    });
    expect(log.model).toEqual([{ runId: 'run-1', sessionId: 'session-1', step: 0, turn: 0 }]);
  });

  it('runs the tool calls of a turn in parallel, then calls the model again', async () => {
    const pending = new Map<string, Deferred<ToolCallOutput>>();
    const started: string[] = [];
    const finished: string[] = [];
    const bothStarted = deferred();
    const { actor, log } = start({
      model: ({ turn }) => (turn === 0 ? callTools(0, ['search', 'fetch']) : answer('done')),
      tool: async (input) => {
        started.push(input.call.callId);
        const d = deferred<ToolCallOutput>();
        pending.set(input.call.callId, d);
        if (started.length === 2) bothStarted.resolve();
        const out = await d.promise;
        finished.push(input.call.callId);
        return out;
      },
    });
    await bothStarted.promise;
    expect(started.sort()).toEqual(['fetch-t0', 'search-t0']);
    expect(finished).toEqual([]);
    expect(actor.getSnapshot().value).toBe('tools');
    expect(log.tools.map((t) => t.step).sort()).toEqual([1, 2]);

    pending.get('fetch-t0')!.resolve({ callId: 'fetch-t0', isError: false });
    await waitFor(actor, (s) => s.context.calls.some((c) => c.callId === 'fetch-t0' && c.done));
    expect(actor.getSnapshot().value).toBe('tools');
    pending.get('search-t0')!.resolve({ callId: 'search-t0', isError: true });

    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({ status: 'completed', output: 'done', turn: 2 });
    expect(finished).toEqual(['fetch-t0', 'search-t0']);
    expect(log.model.map((m) => [m.turn, m.step])).toEqual([
      [0, 0],
      [1, 3],
    ]);
    expect(done.output?.usage.inputTokens).toBe(20);
  });

  it('stops at maxTurns as interrupted, and CONTINUE with a higher limit goes on', async () => {
    const { actor, log } = start(
      { model: ({ turn }) => (turn < 3 ? callTools(turn, ['work']) : answer('finally')) },
      runInput({ maxTurns: 2 }),
    );
    const paused = await waitFor(actor, settled);
    expect(paused.value).toBe('interrupted');
    expect(paused.status).toBe('active');
    expect(paused.context.interruption).toBe('maxTurns');
    expect(paused.context.turn).toBe(2);
    expect(log.model).toHaveLength(2);

    actor.send({ type: 'CONTINUE', maxTurns: 10 });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({
      status: 'completed',
      output: 'finally',
      turn: 4,
      maxTurns: 10,
    });
    expect(done.context.interruption).toBeUndefined();
  });

  it('CANCEL ends the run cancelled and aborts the in-flight model call', async () => {
    const modelStarted = deferred<AbortSignal>();
    const { actor } = start({
      model: (_input, signal) => {
        modelStarted.resolve(signal);
        return new Promise<ModelStepOutput>(() => undefined);
      },
    });
    const signal = await modelStarted.promise;
    actor.send({ type: 'CANCEL' });
    const done = actor.getSnapshot();
    expect(done.status).toBe('done');
    expect(done.value).toBe('cancelled');
    expect(done.output?.status).toBe('cancelled');
    expect(signal.aborted).toBe(true);
  });

  it('a rejected model call interrupts with reason error; CONTINUE retries the same step', async () => {
    let calls = 0;
    const { actor, log } = start({
      model: ({ turn }) => {
        calls++;
        if (calls === 2) return Promise.reject(new ModelError('upstream 500', { status: 500 }));
        return turn === 0 ? callTools(0, ['search']) : answer('done');
      },
    });
    const paused = await waitFor(actor, settled);
    expect(paused.value).toBe('interrupted');
    expect(paused.status).toBe('active'); // not final: it can go on
    expect(paused.context.interruption).toBe('error');
    expect(paused.context.error).toEqual({
      name: 'ModelError',
      message: 'upstream 500',
      code: 'MODEL_ERROR',
      status: 500,
    });
    expect(isPlainJson(paused.context)).toBe(true);
    expect(log.model.map((m) => m.step)).toEqual([0, 2]);

    actor.send({ type: 'CONTINUE' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({ status: 'completed', output: 'done', turn: 2 });
    expect(done.context.error).toBeUndefined();
    // the retry is the same journal step: nothing was journaled for the failed call
    expect(log.model.map((m) => m.step)).toEqual([0, 2, 2]);
  });

  it('a plain error from the model actor interrupts too, stored as plain JSON', async () => {
    const { actor } = start({ model: () => Promise.reject(new TypeError('bad')) });
    const paused = await waitFor(actor, settled);
    expect(paused.context).toMatchObject({
      interruption: 'error',
      error: { name: 'TypeError', message: 'bad', code: 'MODEL_ERROR' },
    });
  });

  it('fails for good when the model step fails for another reason (an unpriced model)', async () => {
    const { actor } = start({
      model: () => Promise.reject(UnpricedModelError.forModel('local')),
    });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('failed');
    expect(done.output).toMatchObject({ status: 'failed', error: { code: 'UNPRICED_MODEL' } });
  });

  it('CANCEL ends a paused run (interrupted or awaiting approval) cancelled', async () => {
    const interrupted = start({ model: () => Promise.reject(new ModelError('down')) });
    await waitFor(interrupted.actor, settled);
    interrupted.actor.send({ type: 'CANCEL' });
    expect(interrupted.actor.getSnapshot()).toMatchObject({
      status: 'done',
      value: 'cancelled',
      output: { status: 'cancelled' },
    });

    const waiting = start({
      model: () => callTools(0, ['danger'], ['danger']),
      approve: ['danger'],
    });
    expect((await waitFor(waiting.actor, settled)).value).toBe('awaitingApproval');
    waiting.actor.send({ type: 'CANCEL' });
    expect(waiting.actor.getSnapshot()).toMatchObject({ status: 'done', value: 'cancelled' });
    expect(waiting.log.tools).toEqual([]);
  });

  it('keeps its context plain JSON at every step', async () => {
    const { actor, snapshots } = start(
      {
        model: ({ turn }) =>
          turn < 2 ? callTools(turn, ['a', 'b', 'guarded'], ['guarded']) : answer('ok'),
        approve: ['guarded'],
      },
      runInput({ standingDecisions: { guarded: 'approve' } }),
    );
    await waitFor(actor, (s) => s.status === 'done');
    expect(snapshots.length).toBeGreaterThan(5);
    for (const s of snapshots) {
      expect(isPlainJson(s.context)).toBe(true);
      expect(JSON.parse(JSON.stringify(s.context))).toEqual(s.context);
    }
    expect(actor.getSnapshot().output?.status).toBe('completed');
  });
});

describe('run machine persisted snapshots', () => {
  it('restores an interrupted run from its JSON snapshot and continues', async () => {
    const options: FakeOptions = {
      model: ({ turn }) => (turn < 1 ? callTools(turn, ['work']) : answer('resumed')),
    };
    const first = start(options, runInput({ maxTurns: 1 }));
    await waitFor(first.actor, settled);
    const saved = persisted(first.actor);
    first.actor.stop();

    const second = start(options, runInput(), saved);
    expect(second.actor.getSnapshot().value).toBe('interrupted');
    expect(second.actor.getSnapshot().context.turn).toBe(1);
    second.actor.send({ type: 'CONTINUE', maxTurns: 3 });
    const done = await waitFor(second.actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({ status: 'completed', output: 'resumed', turn: 2 });
    expect(second.log.model).toEqual([
      { runId: 'run-1', sessionId: 'session-1', step: 2, turn: 1 },
    ]);
  });

  it('restores a run awaiting approval; approve runs the call, reject sends the rejection', async () => {
    const options: FakeOptions = {
      model: ({ turn }) =>
        turn === 0 ? callTools(0, ['pay', 'refund'], ['pay', 'refund']) : answer('settled'),
      approve: ['pay', 'refund'],
    };
    const first = start(options);
    const waiting = await waitFor(first.actor, settled);
    expect(waiting.value).toBe('awaitingApproval');
    expect(first.log.tools).toEqual([]);
    const saved = persisted(first.actor);
    first.actor.stop();

    const second = start(options, runInput(), saved);
    expect(second.actor.getSnapshot().value).toBe('awaitingApproval');
    second.actor.send({ type: 'APPROVE', callId: 'pay-t0' });
    expect(second.actor.getSnapshot().value).toBe('awaitingApproval');
    second.actor.send({ type: 'REJECT', callId: 'refund-t0', message: 'not today' });
    const done = await waitFor(second.actor, (s) => s.status === 'done');
    expect(done.output?.status).toBe('completed');
    const byName = Object.fromEntries(second.log.tools.map((t) => [t.call.name, t]));
    expect(byName.pay?.rejection).toBeUndefined();
    expect(byName.refund?.rejection).toEqual({ reason: 'user', message: 'not today' });
  });

  it('restores a run whose tool call was in flight and re-runs only that call', async () => {
    const hang = deferred();
    const first = start({
      model: () => callTools(0, ['slow']),
      tool: async (input) => {
        hang.resolve();
        return new Promise<ToolCallOutput>(() => input);
      },
    });
    await hang.promise;
    expect(first.actor.getSnapshot().value).toBe('tools');
    const saved = persisted(first.actor);
    first.actor.stop();

    const second = start({ model: () => answer('after crash') }, runInput(), saved);
    const done = await waitFor(second.actor, (s) => s.status === 'done');
    expect(done.output).toMatchObject({ status: 'completed', output: 'after crash', turn: 2 });
    expect(second.log.tools.map((t) => [t.call.callId, t.step])).toEqual([['slow-t0', 1]]);
    expect(second.log.model).toHaveLength(1);
  });
});
