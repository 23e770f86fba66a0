import { afterEach, describe, expect, it } from 'vitest';
import { TempStores } from '../helpers/temp-store.js';
import { assign, fromPromise, setup } from 'xstate';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { workflows } from '../../src/workflows/workflows.js';
import type { StepContext } from '../../src/workflow-host/step-definition.js';
import {
  EventNotAcceptedError,
  UndeclaredActorError,
  WorkflowExistsError,
  WorkflowMismatchError,
  WorkflowNotFoundError,
} from '../../src/errors/workflow-errors.js';

interface OrderContext {
  total: number;
  validated?: boolean;
  paid?: string;
}

const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as { total: number },
    events: {} as { type: 'PAY' } | { type: 'CANCEL' },
  },
  actors: {
    validate: fromPromise<boolean, { total: number }>(async () => true),
    pay: fromPromise<string, { total: number }>(async () => ''),
  },
}).createMachine({
  id: 'order',
  initial: 'validating',
  context: ({ input }) => ({ total: input.total }),
  states: {
    validating: {
      invoke: {
        src: 'validate',
        input: ({ context }) => ({ total: context.total }),
        onDone: {
          target: 'awaitingPayment',
          actions: assign({ validated: ({ event }) => event.output }),
        },
      },
    },
    awaitingPayment: {
      on: { PAY: 'paying', CANCEL: 'cancelled' },
      after: { 259_200_000: 'escalated' },
    },
    paying: {
      invoke: {
        src: 'pay',
        input: ({ context }) => ({ total: context.total }),
        onDone: { target: 'paid', actions: assign({ paid: ({ event }) => event.output }) },
      },
    },
    escalated: { type: 'final' },
    cancelled: { type: 'final' },
    paid: { type: 'final' },
  },
});

function host(store = new MemorySessionStore(), clock = new FakeClock()) {
  const ran: string[] = [];
  const orders = workflows(orderMachine, {
    store,
    clock,
    steps: {
      validate: {
        run: async ({ input, key }: StepContext<{ total: number }>) => {
          ran.push(`validate ${key}`);
          return input.total > 0;
        },
      },
      pay: {
        run: async ({ key }) => {
          ran.push(`pay ${key}`);
          return `receipt-${key}`;
        },
        idempotent: true,
      },
    },
  });
  return { orders, store, clock, ran };
}

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('workflows()', () => {
  it('a cancel right after a start settles every time, on LevelDB (a save landing mid-drain never unloads it)', async () => {
    const { store } = await temps.open();
    const waiting = setup({}).createMachine({
      id: 'w',
      initial: 'waiting',
      states: { waiting: { after: { 259_200_000: 'done' } }, done: { type: 'final' } },
    });
    const host = workflows(waiting, { store });
    for (let i = 0; i < 100; i++) {
      await host.start(`i-${i}`, { userId: 'u' });
      const cancelled = await host.cancel(`i-${i}`, { userId: 'u' });
      expect(cancelled.status).toBe('failed');
    }
    await host.close();
  });

  it('starts an instance, runs its step once, takes an event and saves each macrostep', async () => {
    const { orders, ran } = host();
    const started = await orders.start('o1', { userId: 'alice', input: { total: 30 } });
    expect(started.value).toBe('awaitingPayment');
    expect(started.context).toMatchObject({ total: 30, validated: true });
    expect(started.nextTimerAt).toBeGreaterThan(0);
    const paid = await orders.send('o1', { type: 'PAY' }, { userId: 'alice' });
    expect(paid.status).toBe('completed');
    expect(paid.value).toBe('paid');
    expect(ran).toEqual(['validate o1:2', 'pay o1:5']);
    const journal = await orders.journal('o1', { userId: 'alice' });
    expect(
      journal.map((e) => [
        e.kind,
        (e.output as { type?: string; name?: string }).type ?? (e.output as { name: string }).name,
      ]),
    ).toEqual([
      ['event', 'xstate.init'],
      ['step', 'validate'],
      ['event', 'xstate.done.actor.0.order.validating'],
      ['event', 'PAY'],
      ['step', 'pay'],
      ['event', 'xstate.done.actor.0.order.paying'],
    ]);
    const listed = await orders.list({ userId: 'alice' });
    expect(listed.workflows.map((w) => [w.id, w.status])).toEqual([['o1', 'completed']]);
  });

  it('fires a 3-day after once at its time, across a restart of the host', async () => {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    const first = host(store, clock);
    await first.orders.start('o2', { input: { total: 5 } });
    await first.orders.close();
    const second = host(store, clock);
    const scheduler = second.orders.startScheduler();
    clock.advance(259_200_000 - 1);
    await new Promise((r) => setTimeout(r, 20));
    expect((await second.orders.get('o2')).value).toBe('awaitingPayment');
    clock.advance(1);
    for (let i = 0; i < 50 && (await second.orders.get('o2')).value !== 'escalated'; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await second.orders.get('o2')).value).toBe('escalated');
    await scheduler.stop();
    const journal = await second.orders.journal('o2');
    expect(
      journal.filter((e) => (e.output as { source?: string }).source === 'timer'),
    ).toHaveLength(1);
  });

  it('refuses bad input with typed errors, changing nothing stored', async () => {
    const { orders, store } = host();
    await orders.start('o3', { userId: 'bob', input: { total: 1 } });
    const before = await store.load({ sessionId: 'workflow:o3', userId: 'bob' });
    const refused = orders.send('o3', { type: 'NOPE' } as never, { userId: 'bob' });
    await expect(refused).rejects.toBeInstanceOf(EventNotAcceptedError);
    await expect(refused).rejects.toMatchObject({
      code: 'EVENT_NOT_ACCEPTED',
      state: 'awaitingPayment',
      accepted: ['CANCEL', 'PAY'],
    });
    await expect(orders.send('o3', { type: 'PAY' }, { userId: 'carol' })).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    await expect(orders.start('o3', { userId: 'bob', input: { total: 1 } })).rejects.toBeInstanceOf(
      WorkflowExistsError,
    );
    const after = await store.load({ sessionId: 'workflow:o3', userId: 'bob' });
    expect(after.version).toBe(before.version);
    const other = workflows(orderMachine, {
      name: 'other',
      store,
      steps: { validate: { run: () => true }, pay: { run: () => '' } },
    });
    await expect(other.get('o3', { userId: 'bob' })).rejects.toBeInstanceOf(WorkflowMismatchError);
    expect(() =>
      workflows(orderMachine, { store, steps: { validate: { run: () => true } } }),
    ).toThrow(UndeclaredActorError);
  });
});
