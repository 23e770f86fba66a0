/**
 * Child process of the order workflow's crash test:
 *   node order-crash-worker.js <folder> <start|approve|notes|later|decide>
 * runs one operation of examples/order-flow.ts on the LevelDB store in `<folder>/db`, as the
 * example's processes do, then prints `result <json>`: both orders as stored and their journals.
 *
 * Each operation, after a kill, is run again in a new process, which resumes what the killed
 * one left with `orders.recover()` while it waits for the operation's end:
 * - `start`: starts orders A and B (an order started already is left as it is) and waits until
 *   both refunds wait for approval.
 * - `approve`: approves A's refund by its workflow id, waits until A has ended.
 * - `notes`: sends B three customer notes, each with its event id (a retry sends them again).
 * - `later`: with the clock three days and an hour ahead, runs the scheduler until B's timeout
 *   fired, then waits until B was escalated to a manager.
 * - `decide`: sends B the manager's decision (with its event id), waits until B has ended.
 *
 * Every checkpoint prints `at <n> <label>` (a store write, a model call, a step's effect); with
 * `ORDER_KILL_AT=<kind>:<n>` (see `checkpointIs`) the worker prints `kill-me` at the n-th
 * checkpoint of that kind and, with `ORDER_KILL_MODE=hold` (the default), waits there for the
 * SIGKILL; with `race` it goes on and waits a few checkpoints later (or before printing its
 * result), so the kill races the work.
 * The steps' effects go through the ledger of order-crash-ledger.ts.
 */
import { join } from 'node:path';
import { FakeClock } from '../../src/testing.js';
import {
  LevelSessionStore,
  WorkflowExistsError,
  type Model,
  type SessionStore,
  type WorkflowEventOutput,
  type WorkflowInfo,
  type WorkflowStepOutput,
} from '../../src/index.js';
import {
  DAY_MS,
  draftingModel,
  orderWorkflows,
  type OrderWorkflows,
} from '../../examples/order-flow.js';
import { ledgerWorld } from './order-crash-ledger.js';
import {
  CRASH_ORDERS,
  ORDER_OPS,
  ORDER_USER,
  type OrderCrashResult,
  checkpointIs,
  type OrderOp,
} from './order-crash-ops.js';

/** How far ahead the clock of `later` and `decide` reads: past B's 3-day timeout. */
const LATER_MS = 3 * DAY_MS + 60 * 60 * 1000;
/** Checkpoints after a `race` kill request before the worker waits for the kill anyway. */
const RACE_BACKSTOP = 2;

const write = (line: string): void => void process.stdout.write(`${line}\n`);

/** Kill points: the n-th checkpoint of a kind in this process (see the file's comment). */
class KillPoint {
  private count = 0;
  private matched = 0;
  private requestedAt: number | undefined;

  constructor(
    private readonly at: { kind: string; n: number } | undefined,
    private readonly race: boolean,
  ) {}

  async reach(label: string): Promise<void> {
    this.count += 1;
    write(`at ${this.count} ${label}`);
    if (this.requestedAt !== undefined) {
      if (this.count >= this.requestedAt + RACE_BACKSTOP) return this.hold();
      return;
    }
    if (!this.at || !checkpointIs(label, this.at.kind)) return;
    this.matched += 1;
    if (this.matched !== this.at.n) return;
    write('kill-me');
    if (this.race) this.requestedAt = this.count;
    else return this.hold();
  }

  /** Before the result: a kill asked for in a race is still waited for. */
  async end(): Promise<void> {
    if (this.requestedAt !== undefined) return this.hold();
  }

  private hold(): Promise<never> {
    return new Promise<never>(() => setInterval(() => undefined, 60_000));
  }
}

/** The store, with a checkpoint before and after each write. */
function checkpointed(store: SessionStore, kill: KillPoint): SessionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'save' && property !== 'create')
        return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        await kill.reach(`${property}-before`);
        const done = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        await kill.reach(`${property}-after`);
        return done;
      };
    },
  });
}

/** The example's scripted model, with a checkpoint at each call. */
function checkpointedModel(kill: KillPoint): Model {
  const inner = draftingModel();
  return {
    name: inner.name,
    price: inner.price,
    generate: async (request, options) => {
      await kill.reach('model');
      return inner.generate(request, options);
    },
    stream: async function* (request, options) {
      await kill.reach('model');
      yield* inner.stream(request, options);
    },
  };
}

/**
 * Waits until order `id` is as `done` says, recovering the user's instances no process holds
 * (one left by a killed process: its step in flight decided by its policy, its inbox applied,
 * its timers due fired) until it is.
 */
async function until(
  orders: OrderWorkflows,
  id: string,
  done: (info: WorkflowInfo) => boolean | Promise<boolean>,
): Promise<void> {
  const user = { userId: ORDER_USER };
  for (;;) {
    if (await done(await orders.get(id, user))) return;
    await orders.recover(user);
    if (await done(await orders.get(id, user))) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const waitsForApproval = (orders: OrderWorkflows, id: string) => async () =>
  (await orders.approvals(id, { userId: ORDER_USER })).length > 0;
const ended = (info: WorkflowInfo): boolean => info.status !== 'active';
const ESCALATED = JSON.stringify({ escalated: 'awaitingManager' });

async function operate(orders: OrderWorkflows, op: OrderOp): Promise<void> {
  const user = { userId: ORDER_USER };
  switch (op) {
    case 'start':
      for (const input of CRASH_ORDERS) {
        await orders.start(input.orderId, { input, ...user }).catch((error: unknown) => {
          // started by a process killed since: resumed below
          if (!(error instanceof WorkflowExistsError)) throw error;
        });
        await until(orders, input.orderId, waitsForApproval(orders, input.orderId));
      }
      return;
    case 'approve':
      // Approved already by a process killed since: the approvals are gone, A is resumed.
      for (const call of await orders.approvals('A', user))
        await orders.approve('A', call.callId, user);
      await until(orders, 'A', ended);
      return;
    case 'notes':
      for (const n of [1, 2, 3])
        await orders.send(
          'B',
          { type: 'CUSTOMER_NOTE', text: `note ${n}` },
          { ...user, eventId: `note-${n}` },
        );
      await until(orders, 'B', (info) => (info.context as { notes: string[] }).notes.length === 3);
      return;
    case 'later': {
      // The scheduler fires B's timeout (unless a killed process did already) ...
      const scheduler = orders.startScheduler();
      try {
        while ((await orders.get('B', user)).timers.length > 0)
          await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        await scheduler.stop();
      }
      // ... and the escalation goes on to the manager (here, or after a kill mid-ticket).
      await until(orders, 'B', (info) => JSON.stringify(info.value) === ESCALATED);
      return;
    }
    case 'decide':
      await orders.send(
        'B',
        { type: 'MANAGER_DECISION', approve: true, amountUsd: 100 },
        { ...user, eventId: 'manager-B' },
      );
      await until(orders, 'B', ended);
      return;
  }
}

async function report(orders: OrderWorkflows): Promise<OrderCrashResult> {
  const result: OrderCrashResult = {};
  for (const { orderId } of CRASH_ORDERS) {
    const info = await orders.get(orderId, { userId: ORDER_USER });
    const journal = await orders.journal(orderId, { userId: ORDER_USER });
    result[orderId] = {
      status: info.status,
      value: info.value,
      context: info.context,
      output: info.output,
      events: journal.flatMap((e) => {
        if (e.kind !== 'event') return [];
        const { source, type, eventId } = e.output as WorkflowEventOutput;
        return [[source, type, eventId].filter(Boolean).join(' ')];
      }),
      steps: journal.flatMap((e) => {
        if (e.kind !== 'step') return [];
        const { name, outcome } = e.output as WorkflowStepOutput;
        return [`${name} ${outcome}`];
      }),
    };
  }
  return result;
}

async function main(): Promise<void> {
  const [folder, op] = process.argv.slice(2) as [string, OrderOp];
  if (!ORDER_OPS.includes(op)) throw new Error(`unknown operation "${op}"`);
  const [kind, n] = (process.env['ORDER_KILL_AT'] ?? '').split(':');
  const at = kind && n ? { kind, n: Number(n) } : undefined;
  const kill = new KillPoint(at, process.env['ORDER_KILL_MODE'] === 'race');
  const store = await LevelSessionStore.open({ path: join(folder, 'db') });
  const orders = orderWorkflows({
    store: checkpointed(store, kill),
    world: ledgerWorld(folder, (label) => kill.reach(label)),
    model: checkpointedModel(kill),
    // Three days and an hour later: B's timeout is due.
    ...(op === 'later' || op === 'decide' ? { clock: new FakeClock(Date.now() + LATER_MS) } : {}),
  });
  await operate(orders, op);
  const result = await report(orders);
  await kill.end();
  await orders.close();
  await store.close();
  write(`result ${JSON.stringify(result)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
