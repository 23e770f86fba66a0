import { assign, fromPromise, setup } from 'xstate';
import { z } from 'zod';
import {
  Agent,
  EventNotAcceptedError,
  LevelSessionStore,
  tool,
  workflows,
} from '../../src/index.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';

/** When the fixture's instances start (the clock the host and its agent read). */
export const T0 = Date.UTC(2026, 10, 28, 9, 0);
/** Three days: the delay after which a waiting order escalates. */
export const THREE_DAYS = 259_200_000;

export interface OrderContext {
  orderId: string;
  amount: number;
  validated?: boolean;
}

/**
 * An order flow: a validation step, then waiting for payment (three days, then it escalates);
 * `REFUND` invokes the drafting agent (whose refund call waits on approval), `STOCK` a stock
 * check that takes as long as the app says, `SHIP` ends it.
 */
export const orderMachine = setup({
  types: {
    context: {} as OrderContext,
    input: {} as { orderId: string; amount: number },
    events: {} as { type: 'REFUND' } | { type: 'STOCK' } | { type: 'SHIP'; carrier?: string },
  },
  actors: {
    validate: fromPromise<boolean, { amount: number }>(async () => true),
    checkStock: fromPromise<boolean, { orderId: string }>(async () => true),
    drafter: fromPromise<unknown, { input: string }>(async () => undefined),
  },
}).createMachine({
  id: 'order',
  initial: 'validating',
  context: ({ input }) => ({ orderId: input.orderId, amount: input.amount }),
  states: {
    validating: {
      invoke: {
        src: 'validate',
        input: ({ context }) => ({ amount: context.amount }),
        onDone: {
          target: 'awaitingPayment',
          actions: assign({ validated: ({ event }) => event.output }),
        },
      },
    },
    awaitingPayment: {
      on: { REFUND: 'refund', STOCK: 'checking', SHIP: 'shipped' },
      after: { [THREE_DAYS]: 'escalated' },
    },
    refund: {
      initial: 'drafting',
      after: { [THREE_DAYS]: 'escalated' },
      states: {
        drafting: {
          invoke: {
            id: 'drafter',
            src: 'drafter',
            input: ({ context }) => ({
              input: `draft a refund of ${context.amount} for ${context.orderId}`,
            }),
            onDone: '#order.refunded',
          },
        },
      },
    },
    checking: {
      invoke: {
        id: 'stock',
        src: 'checkStock',
        input: ({ context }) => ({ orderId: context.orderId }),
        onDone: 'awaitingPayment',
      },
    },
    refunded: { type: 'final' },
    shipped: { type: 'final' },
    escalated: { type: 'final' },
  },
});

const refund = tool({
  name: 'refund',
  description: 'Refunds an order',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `refunded ${amount}`,
});

/** The drafting agent: its first turn asks to refund (call `c-refund`), then it says done. */
export function drafterAgent(clock: FakeClock): Agent {
  const model = new ScriptedModel((request) => {
    const last = request.items.at(-1);
    if (last?.type === 'tool_result') return { text: `refund done: ${last.output}` };
    return { toolCalls: [{ name: 'refund', arguments: { amount: 40 }, callId: 'c-refund' }] };
  });
  return new Agent({ name: 'drafter', model, tools: [refund], clock });
}

/**
 * The app's host of the order flow on `store`. `stock` decides when a stock check ends (by
 * default at once); every step run is counted in `ran`.
 */
export function orderWorkflows(
  store: SessionStore,
  clock = new FakeClock(T0),
  stock: () => Promise<boolean> = async () => true,
) {
  const ran: string[] = [];
  const orders = workflows(orderMachine, {
    name: 'orders',
    store,
    clock,
    steps: {
      validate: {
        run: ({ input }: { input: { amount: number } }) => {
          ran.push('validate');
          return input.amount > 0;
        },
      },
      checkStock: {
        run: () => {
          ran.push('checkStock');
          return stock();
        },
      },
    },
    agents: { drafter: drafterAgent(clock) },
  });
  return { orders, clock, ran };
}

/**
 * Waits, a turn of the event loop at a time, until `ready` (at most `turns` turns; then a
 * failure naming `what`). For states the host reaches without saying so (see below).
 */
async function until(what: string, ready: () => boolean | Promise<boolean>, turns = 100_000) {
  for (let i = 0; i < turns; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`order fixture: ${what} never happened`);
}

/**
 * `send`, tried once more when the host refused it as if the instance took no event at all
 * (`accepted` empty) though it waits for one: the host's first cut can restore an instance
 * right after its start and apply the event before the restored actor runs. A refusal stores
 * nothing, so the second try is the same send.
 */
async function sendOnce<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof EventNotAcceptedError) || error.accepted.length > 0) throw error;
    return send();
  }
}

/**
 * Writes with the real host, on `store`: alice's `order-1` (in `refund.drafting`, its drafting
 * agent's session `workflow:order-1/drafter` waiting on approval of call `c-refund`, the
 * three-day escalation timer), `order-2` (shipped: completed), `order-3` (its stock check in
 * flight), `order-4` (cancelled), `order-5` and `order-6` (waiting for payment); bob's
 * `order-b`; alice's plain session `chat`. The host is closed when it returns (the store not).
 */
export async function writeOrders(store: SessionStore): Promise<void> {
  const clock = new FakeClock(T0);
  const { orders } = orderWorkflows(store, clock, () => new Promise<boolean>(() => undefined));
  const alice = { userId: 'alice' };
  const start = (id: string, userId = 'alice') =>
    orders.start(id, { userId, input: { orderId: id.replace('order', 'o'), amount: 40 } });
  await start('order-1');
  clock.advance(10_000);
  await sendOnce(() =>
    orders.send('order-1', { type: 'REFUND' }, { ...alice, eventId: 'refund-1' }),
  );
  await start('order-2');
  await sendOnce(() => orders.send('order-2', { type: 'SHIP' }, alice));
  await start('order-3');
  const checking = sendOnce(() => orders.send('order-3', { type: 'STOCK' }, alice)).catch(
    (error: unknown) => error,
  );
  const key3 = { sessionId: 'workflow:order-3', userId: 'alice' };
  await until('the stock check starting', async () => {
    const snapshot = (await store.load(key3)).snapshot as { host: { steps: object } };
    return Object.keys(snapshot.host.steps).length > 0;
  });
  await start('order-4');
  await orders.cancel('order-4', { ...alice, reason: 'customer left' });
  await start('order-5');
  await start('order-6');
  await start('order-b', 'bob');
  await orders.close();
  await checking;
  await new Agent({ name: 'chat', model: new ScriptedModel([{ text: 'hi' }]), store, clock }).run(
    'hello',
    { sessionId: 'chat', userId: 'alice' },
  );
}

/** A LevelDB folder holding {@link writeOrders}' instances; closed when it returns. */
export async function writeOrdersFolder(path: string): Promise<void> {
  const store = await LevelSessionStore.open({ path });
  try {
    await writeOrders(store);
  } finally {
    await store.close();
  }
}

/**
 * Starts, with the real host on `store`, alice's `order-5` and `order-6` and bob's `order-b`
 * (each waiting for payment), and nothing else: the instances a store shared by processes
 * holds before any event (the host is closed when it returns, the store not).
 */
export async function startOrders(store: SessionStore): Promise<void> {
  const { orders } = orderWorkflows(store);
  try {
    for (const [id, userId] of [
      ['order-5', 'alice'],
      ['order-6', 'alice'],
      ['order-b', 'bob'],
    ] as const) {
      await orders.start(id, { userId, input: { orderId: id.replace('order', 'o'), amount: 40 } });
    }
  } finally {
    await orders.close();
  }
}
