import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { workflows } from '../../src/workflows/workflows.js';
import type { StepDefinition } from '../../src/workflow-host/step-definition.js';
import type { WorkflowStepOutput } from '../../src/machines/schemas/workflow-journal.js';

const job = setup({
  types: { context: {} as { result: unknown; error: unknown } },
  actors: { work: fromPromise<string, { n: number }>(async () => '') },
}).createMachine({
  id: 'job',
  initial: 'working',
  context: { result: undefined, error: undefined },
  states: {
    working: {
      invoke: {
        id: 'work',
        src: 'work',
        input: { n: 1 },
        onDone: { target: 'done', actions: assign({ result: ({ event }) => event.output }) },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => (event.error as { code?: string }).code }),
        },
      },
      on: { STOP: 'stopped' },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
    stopped: { type: 'final' },
  },
});

/** A step whose first run never ends (its process "crashes" in it); later runs finish. */
function crashingStep(extra: Partial<StepDefinition> = {}) {
  const runs: string[] = [];
  let entered!: () => void;
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const step: StepDefinition = {
    run: ({ key, signal }) => {
      runs.push(key);
      if (runs.length === 1) {
        entered();
        return new Promise<string>((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('stopped'))),
        );
      }
      return `ran ${key}`;
    },
    ...extra,
  };
  return { step, runs, inFlight };
}

/** Starts an instance whose step is in flight, then drops the host (as a crash would). */
async function crashInStep(
  step: ReturnType<typeof crashingStep>,
  store = new MemorySessionStore(),
) {
  const clock = new FakeClock();
  const first = workflows(job, { store, clock, steps: { work: step.step } });
  const started = first.start('j1', { userId: 'u' });
  await step.inFlight;
  await first.close();
  await started;
  const second = workflows(job, { store, clock, steps: { work: step.step } });
  return { store, clock, second };
}

describe('a durable step in flight at a crash', () => {
  it("'retry' (an idempotent step): runs again with the same key, once", async () => {
    const step = crashingStep({ idempotent: true });
    const { second } = await crashInStep(step);
    const [recovered] = await second.recover({ userId: 'u' });
    expect(recovered?.info).toMatchObject({
      status: 'completed',
      value: 'done',
      context: { result: 'ran j1:2' },
    });
    expect(step.runs).toEqual(['j1:2', 'j1:2']);
    const journal = await second.journal('j1', { userId: 'u' });
    const stepEntry = journal.find((e) => e.kind === 'step');
    expect(stepEntry).toMatchObject({
      step: 2,
      restarts: 1,
      output: { outcome: 'done', output: 'ran j1:2' },
    });
  });

  it("'fail' (the default): the machine gets StepInterruptedError, the step does not run again", async () => {
    const step = crashingStep();
    const { second } = await crashInStep(step);
    const [recovered] = await second.recover({ userId: 'u' });
    expect(recovered?.info).toMatchObject({
      value: 'failed',
      context: { error: 'STEP_INTERRUPTED' },
    });
    expect(step.runs).toHaveLength(1);
    const journal = await second.journal('j1', { userId: 'u' });
    const outcome = journal.find((e) => e.kind === 'step')?.output as WorkflowStepOutput;
    expect(outcome).toMatchObject({ outcome: 'error', error: { code: 'STEP_INTERRUPTED' } });
  });

  it("'ask': waits for an operator, whose answer is the step's outcome", async () => {
    const step = crashingStep({ onInterrupted: 'ask' });
    const { second } = await crashInStep(step);
    const [recovered] = await second.recover({ userId: 'u' });
    expect(recovered?.info).toMatchObject({ value: 'working', awaitingApproval: true });
    expect(recovered?.info?.steps).toEqual([
      expect.objectContaining({ actorId: 'work', inDoubt: true }),
    ]);
    const done = await second.resolveInDoubt(
      'j1',
      'work',
      { action: 'result', output: 'settled by hand' },
      { userId: 'u' },
    );
    expect(done).toMatchObject({ value: 'done', context: { result: 'settled by hand' } });
    expect(step.runs).toHaveLength(1);
  });

  it('reconcile: finds the effect happened and takes its output without running again', async () => {
    const step = crashingStep({ reconcile: ({ key }) => ({ output: `found ${key}` }) });
    const { second } = await crashInStep(step);
    const [recovered] = await second.recover({ userId: 'u' });
    expect(recovered?.info).toMatchObject({ value: 'done', context: { result: 'found j1:2' } });
    expect(step.runs).toHaveLength(1);
  });
});

describe('one writer, and cancel', () => {
  it('a writer whose lease was taken over has its save refused and writes nothing', async () => {
    const clock = new FakeClock();
    const store = new MemorySessionStore({ clock });
    let finish!: (value: string) => void;
    const steps = { work: { run: () => new Promise<string>((resolve) => (finish = resolve)) } };
    const slow = workflows(job, {
      store,
      clock,
      steps,
      owner: 'a',
      leaseTtlMs: 1_000,
      pollIntervalMs: 60_000,
    });
    const started = slow.start('j2', { userId: 'u' });
    await new Promise((r) => setTimeout(r, 10));
    const before = await store.load({ sessionId: 'workflow:j2', userId: 'u' });
    // Owner "a" stops renewing (paused); "b" takes the lease once it expired.
    clock.advance(5_000);
    const taken = await store.acquireLease({ sessionId: 'workflow:j2', userId: 'u' }, 'b', 30_000);
    expect(taken?.owner).toBe('b');
    finish('late');
    await expect(started).rejects.toMatchObject({ code: 'LEASE_LOST' });
    const after = await store.load({ sessionId: 'workflow:j2', userId: 'u' });
    expect(after.version).toBe(before.version);
    expect(after.snapshot).toEqual(before.snapshot);
  });

  it('cancel from another caller stops the step and ends the instance failed, cancelled', async () => {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    let aborted = false;
    const steps = {
      work: {
        run: ({ signal }: { signal: AbortSignal }) =>
          new Promise<string>((_, reject) =>
            signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('aborted'));
            }),
          ),
      },
    };
    const orders = workflows(job, { store, clock, steps });
    const started = orders.start('j3', { userId: 'u' });
    await new Promise((r) => setTimeout(r, 10));
    const cancelled = await orders.cancel('j3', { userId: 'u', reason: 'customer left' });
    expect(cancelled).toMatchObject({ status: 'failed', cancelled: { reason: 'customer left' } });
    expect(aborted).toBe(true);
    await started;
    await expect(orders.send('j3', { type: 'STOP' }, { userId: 'u' })).rejects.toMatchObject({
      code: 'WORKFLOW_CANCELLED',
    });
  });
});

describe('a changed definition', () => {
  const v2 = setup({
    types: { context: {} as { result: unknown; error: unknown } },
    actors: { work: fromPromise<string, { n: number }>(async () => '') },
  }).createMachine({
    id: 'job',
    initial: 'queued',
    context: { result: undefined, error: undefined },
    states: {
      queued: { on: { STOP: 'halted' } },
      working: { invoke: { id: 'work', src: 'work', input: { n: 1 }, onDone: 'done' } },
      done: { type: 'final' },
      halted: { type: 'final' },
    },
  });

  async function saved() {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    const steps = { work: { run: () => new Promise<string>(() => undefined) } };
    const v1 = workflows(job, { store, clock, steps });
    const started = v1.start('j4', { userId: 'u' });
    await new Promise((r) => setTimeout(r, 10));
    await v1.close();
    await started;
    return { store, clock, steps };
  }

  it('at the same version: a typed refusal naming what changed, nothing stored', async () => {
    const { store, clock, steps } = await saved();
    const before = await store.load({ sessionId: 'workflow:j4', userId: 'u' });
    const changed = workflows(v2, { store, clock, steps });
    const refused = changed.send('j4', { type: 'STOP' }, { userId: 'u' });
    await expect(refused).rejects.toMatchObject({ code: 'WORKFLOW_DEFINITION_CHANGED' });
    await expect(refused).rejects.toThrow(
      /states removed: job\.failed, job\.stopped; states added: job\.queued, job\.halted/,
    );
    expect((await store.load({ sessionId: 'workflow:j4', userId: 'u' })).version).toBe(
      before.version,
    );
  });

  it('a new version with a migration: the old instance goes on', async () => {
    const { store, clock, steps } = await saved();
    const migrated = workflows(v2, {
      store,
      clock,
      steps,
      version: 2,
      migrations: { 1: (snapshot) => ({ ...snapshot, value: 'queued', children: {} }) },
    });
    const halted = await migrated.send('j4', { type: 'STOP' }, { userId: 'u' });
    expect(halted).toMatchObject({ value: 'halted', status: 'completed' });
  });
});
