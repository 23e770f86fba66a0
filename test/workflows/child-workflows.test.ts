import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { workflows } from '../../src/workflows/workflows.js';

const payment = setup({
  types: {
    context: {} as { amount: number },
    input: {} as { amount: number },
    events: {} as { type: 'CONFIRM' },
  },
  actors: { charge: fromPromise<string, { amount: number }>(async () => '') },
}).createMachine({
  id: 'payment',
  initial: 'confirming',
  context: ({ input }) => ({ amount: input.amount }),
  states: {
    confirming: { on: { CONFIRM: 'charging' } },
    charging: {
      invoke: {
        src: 'charge',
        input: ({ context }) => ({ amount: context.amount }),
        onDone: 'charged',
      },
    },
    charged: { type: 'final' },
  },
  output: ({ context }) => ({ charged: context.amount }),
});

const order = setup({
  types: { context: {} as { receipt: unknown } },
  actors: { pay: fromPromise<unknown, { amount: number }>(async () => undefined) },
}).createMachine({
  id: 'order',
  initial: 'paying',
  context: { receipt: undefined },
  states: {
    paying: {
      invoke: {
        src: 'pay',
        input: { amount: 42 },
        onDone: { target: 'paid', actions: assign({ receipt: ({ event }) => event.output }) },
      },
    },
    paid: { type: 'final' },
  },
});

const impatient = setup({
  types: { events: {} as { type: 'GIVE_UP' } },
  actors: { pay: fromPromise<unknown, { amount: number }>(async () => undefined) },
}).createMachine({
  id: 'impatient',
  initial: 'paying',
  states: {
    paying: {
      invoke: { src: 'pay', input: { amount: 7 }, onDone: 'paid' },
      on: { GIVE_UP: 'abandoned' },
    },
    paid: { type: 'final' },
    abandoned: { type: 'final' },
  },
});

describe('a workflow invoking another', () => {
  it('leaving the state that invoked a child cancels the child instance', async () => {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    const payments = workflows(payment, {
      store,
      clock,
      steps: { charge: { run: () => 'never' } },
    });
    const orders = workflows(impatient, { store, clock, children: { pay: payments } });
    await orders.start('o2', { userId: 'u' });
    const left = await orders.send('o2', { type: 'GIVE_UP' }, { userId: 'u' });
    expect(left).toMatchObject({ value: 'abandoned', status: 'completed' });
    expect(left.links).toEqual([expect.objectContaining({ kind: 'workflow', ended: true })]);
    const childId = 'o2/0.impatient.paying';
    for (
      let i = 0;
      i < 50 && (await payments.get(childId, { userId: 'u' })).status === 'active';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const child = await payments.get(childId, { userId: 'u' });
    expect(child).toMatchObject({
      status: 'failed',
      cancelled: { reason: 'its parent left the state that invoked it' },
    });
  });

  it('runs a child instance of its own; the child ending (in a later call, across a restart) ends the invoke once', async () => {
    const store = new MemorySessionStore();
    const clock = new FakeClock();
    const charges: string[] = [];
    const hosts = () => {
      const payments = workflows(payment, {
        store,
        clock,
        steps: { charge: { run: ({ key }) => (charges.push(key), `ch-${key}`), idempotent: true } },
      });
      const orders = workflows(order, { store, clock, children: { pay: payments } });
      return { payments, orders };
    };
    const first = hosts();
    const started = await first.orders.start('o1', { userId: 'u' });
    expect(started.value).toBe('paying');
    expect(started.links).toEqual([
      { actorId: '0.order.paying', kind: 'workflow', name: 'pay', id: 'o1/0.order.paying' },
    ]);
    // The child is an instance of its own, of the same user, waiting for its event.
    const child = await first.payments.get('o1/0.order.paying', { userId: 'u' });
    expect(child).toMatchObject({ value: 'confirming', status: 'active' });
    await first.orders.close();
    await first.payments.close();

    const second = hosts();
    await second.payments.send('o1/0.order.paying', { type: 'CONFIRM' }, { userId: 'u' });
    for (
      let i = 0;
      i < 50 && (await second.orders.get('o1', { userId: 'u' })).status !== 'completed';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const done = await second.orders.get('o1', { userId: 'u' });
    expect(done).toMatchObject({
      status: 'completed',
      value: 'paid',
      context: { receipt: { charged: 42 } },
    });
    expect(charges).toHaveLength(1);
    const journal = await second.orders.journal('o1', { userId: 'u' });
    expect(
      journal.filter((e) => (e.output as { source?: string }).source === 'child'),
    ).toHaveLength(1);
  });
});
