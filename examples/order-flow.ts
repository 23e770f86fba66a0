/**
 * The order flow of examples/order-workflow.ts, as a module: the app's own XState machine
 * (validate → draft a refund with an agent → pay, or escalate after 3 days), its durable
 * steps and its agent, with the outside world (the warehouse, the payment gateway, the
 * ticket desk) passed in. The example runs it with printing stand-ins; the crash test runs
 * the same flow with stand-ins that keep a ledger of every effect.
 */
import { assign, fromPromise, setup } from 'xstate';
import { z } from 'zod';
import {
  Agent,
  tool,
  workflows,
  type Clock,
  type Model,
  type ModelRequest,
  type SessionStore,
  type StepContext,
  type StepDefinition,
  type Workflows,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';

/** One day in milliseconds: the refund's approval waits three of them before it escalates. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** What an order starts with. */
export interface OrderInput {
  orderId: string;
  customer: string;
  amountUsd: number;
  complaint: string;
}

/** A payment the gateway made (or had made before, for the same idempotency key). */
export interface Payment {
  confirmation: string;
  amountUsd: number;
}

/** The outside world the flow's steps reach, injected so a test can keep a ledger of it. */
export interface OrderWorld {
  /** Is the order ours, paid, and the amount no more than was paid? */
  checkOrder(order: {
    orderId: string;
    amountUsd: number;
  }): Promise<{ ok: boolean; reason: string }>;
  /** Pays `amountUsd` back; a second call with the same key returns the first payment. */
  refund(payment: { idempotencyKey: string; orderId: string; amountUsd: number }): Promise<Payment>;
  /** Opens a ticket for a manager; a second call with the same key returns the same ticket. */
  openTicket(ticket: { idempotencyKey: string; orderId: string; reason: string }): Promise<string>;
}

interface OrderContext extends OrderInput {
  validation: string | undefined;
  draft: string | undefined;
  ticket: string | undefined;
  decidedBy: 'agent' | 'manager' | undefined;
  payment: Payment | undefined;
  /** Notes the customer sent while the order was open, in the order they were applied. */
  notes: string[];
}

type OrderEvent =
  | { type: 'CUSTOMER_NOTE'; text: string }
  | { type: 'MANAGER_DECISION'; approve: boolean; amountUsd?: number };

type OrderRef = { orderId: string; amountUsd: number };

/**
 * The durable steps, as `workflows()` takes them: each finished one is journaled and never runs
 * again. Each is `idempotent` (running it again with the same `key` has the effect of running it
 * once), so a step in flight at a crash runs again with the same key: the payment provider and
 * the ticket desk dedup by it.
 */
export function orderSteps(world: OrderWorld) {
  return {
    validate: {
      run: ({ input }: StepContext<OrderRef>) => world.checkOrder(input),
      idempotent: true, // a read
    },
    pay: {
      run: ({ input, key }: StepContext<OrderRef>) =>
        world.refund({ idempotencyKey: key, ...input }),
      idempotent: true,
    },
    openTicket: {
      run: ({ input, key }: StepContext<{ orderId: string; reason: string }>) =>
        world.openTicket({ idempotencyKey: key, ...input }),
      idempotent: true,
    },
  } satisfies Record<string, StepDefinition>;
}

/** A typed place in `setup({ actors })` for a step `workflows()` runs (its `steps` provide it). */
const hostedStep = <TOutput, TInput>() =>
  fromPromise<TOutput, TInput>(() => Promise.reject(new Error('run by workflows()')));

/** The refund the agent proposes; a human approves it before it is recorded. */
const proposeRefund = tool({
  name: 'propose_refund',
  description: 'Proposes a refund for an order; a human approves it',
  parameters: z.object({ orderId: z.string(), amountUsd: z.number().positive(), note: z.string() }),
  needsApproval: true,
  execute: ({ orderId, amountUsd, note }) => `refund of $${amountUsd} for ${orderId}: ${note}`,
});

/** An offline model: proposes a refund of the amount in the request, then reports it. */
export function draftingModel(): Model {
  return new ScriptedModel((request: ModelRequest) => {
    const last = request.items.at(-1);
    if (last?.type === 'tool_result')
      return { text: last.isError ? `No refund: ${last.output}` : `Drafted the ${last.output}.` };
    const first = request.items.find((i) => i.type === 'message');
    const text = typeof first?.content === 'string' ? first.content : '';
    const orderId = /order (\S+)/.exec(text)?.[1] ?? 'unknown';
    const amountUsd = Number(/\$(\d+(?:\.\d+)?)/.exec(text)?.[1] ?? '0');
    return {
      toolCalls: [
        {
          name: 'propose_refund',
          arguments: { orderId, amountUsd, note: 'item arrived damaged' },
        },
      ],
    };
  });
}

/** The agent that drafts the refund; its run is a session linked to the order. */
export function drafterAgent(options: { model?: Model; store: SessionStore }): Agent {
  return new Agent({
    name: 'refund-drafter',
    instructions: 'You draft refunds for damaged orders. Propose the refund with the tool.',
    model: options.model ?? draftingModel(),
    tools: [proposeRefund],
    store: options.store,
  });
}

/**
 * The app's own order machine: plain XState v5, its actors declared in `setup()` (the steps as
 * typed places, the agent as its actor logic).
 */
export function orderMachine(drafter: Agent) {
  return setup({
    types: {
      input: {} as OrderInput,
      context: {} as OrderContext,
      events: {} as OrderEvent,
      output: {} as { orderId: string; refundedUsd: number; confirmation: string | undefined },
    },
    actors: {
      validate: hostedStep<{ ok: boolean; reason: string }, OrderRef>(),
      pay: hostedStep<Payment, OrderRef>(),
      openTicket: hostedStep<string, { orderId: string; reason: string }>(),
      drafter: drafter.asActor(),
    },
    delays: { approvalTimeout: 3 * DAY_MS },
  }).createMachine({
    id: 'order',
    context: ({ input }) => ({
      ...input,
      validation: undefined,
      draft: undefined,
      ticket: undefined,
      decidedBy: undefined,
      payment: undefined,
      notes: [],
    }),
    initial: 'validating',
    on: {
      CUSTOMER_NOTE: {
        actions: assign({ notes: ({ context, event }) => [...context.notes, event.text] }),
      },
    },
    states: {
      validating: {
        invoke: {
          src: 'validate',
          input: ({ context }) => ({ orderId: context.orderId, amountUsd: context.amountUsd }),
          onDone: [
            {
              guard: ({ event }) => event.output.ok,
              target: 'drafting',
              actions: assign({ validation: ({ event }) => event.output.reason }),
            },
            {
              target: 'rejected',
              actions: assign({ validation: ({ event }) => event.output.reason }),
            },
          ],
          onError: 'rejected',
        },
      },
      drafting: {
        // The order's own states while the agent works: its snapshot says which.
        initial: 'working',
        states: { working: {}, awaitingApproval: {} },
        invoke: {
          src: 'drafter',
          input: ({ context }) => ({
            input: `Customer ${context.customer} says order ${context.orderId} arrived damaged: "${context.complaint}". Draft a refund of $${context.amountUsd}.`,
          }),
          onSnapshot: [
            {
              guard: ({ event }) => event.snapshot.context.phase === 'awaitingApproval',
              target: '.awaitingApproval',
            },
            {
              guard: ({ event }) => event.snapshot.context.phase === 'running',
              target: '.working',
            },
          ],
          onDone: {
            target: 'paying',
            actions: assign({
              draft: ({ event }) => String(event.output.output),
              decidedBy: 'agent',
            }),
          },
          onError: 'escalated',
        },
        // Nobody approved the refund in three days: a manager decides.
        after: { approvalTimeout: 'escalated' },
      },
      escalated: {
        initial: 'ticketing',
        states: {
          ticketing: {
            invoke: {
              src: 'openTicket',
              input: ({ context }) => ({
                orderId: context.orderId,
                reason: 'refund not approved within 3 days',
              }),
              onDone: {
                target: 'awaitingManager',
                actions: assign({ ticket: ({ event }) => event.output }),
              },
            },
          },
          awaitingManager: {
            on: {
              MANAGER_DECISION: [
                {
                  guard: ({ event }) => event.approve,
                  target: '#order.paying',
                  actions: assign({
                    amountUsd: ({ context, event }) => event.amountUsd ?? context.amountUsd,
                    decidedBy: 'manager',
                  }),
                },
                { target: '#order.closed' },
              ],
            },
          },
        },
      },
      paying: {
        invoke: {
          src: 'pay',
          input: ({ context }) => ({ orderId: context.orderId, amountUsd: context.amountUsd }),
          onDone: { target: 'refunded', actions: assign({ payment: ({ event }) => event.output }) },
        },
      },
      refunded: { type: 'final' },
      closed: { type: 'final' },
      rejected: { type: 'final' },
    },
    output: ({ context }) => ({
      orderId: context.orderId,
      refundedUsd: context.payment?.amountUsd ?? 0,
      confirmation: context.payment?.confirmation,
    }),
  });
}

/** The order flow hosted by `workflows()`: durable steps, the agent, durable timers. */
export function orderWorkflows(options: {
  store: SessionStore;
  world: OrderWorld;
  model?: Model;
  clock?: Clock;
}) {
  const drafter = drafterAgent({ store: options.store, model: options.model });
  return workflows(orderMachine(drafter), {
    name: 'orders',
    store: options.store,
    steps: orderSteps(options.world),
    agents: { drafter },
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

export type OrderWorkflows = Workflows<ReturnType<typeof orderMachine>>;
