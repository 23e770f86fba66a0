/**
 * A durable order workflow: the app's own XState machine hosted by `workflows()`, across three
 * processes. Two damaged orders come in; each is validated (a durable step), then an agent
 * drafts its refund with a tool a human must approve.
 *
 *   1. `start`: starts orders A-100 and B-200; both wait for the refund's approval; exit.
 *   2. `approve`: a new process approves A-100's refund by its workflow id; the agent finishes,
 *      the payment step pays (once, by its idempotency key) and A-100 ends `refunded`.
 *   3. `later`: a process whose clock reads three days later runs the scheduler: B-200's 3-day
 *      `after` fires, the order escalates (a ticket step), a manager's decision is sent to it,
 *      and it is paid.
 *
 *   npx tsx examples/order-workflow.ts            # the three phases, each in its own process
 *   npx tsx examples/order-workflow.ts start      # one phase only (start, approve or later)
 *
 * Offline: the model is scripted. Everything lives in LevelDB under AGENTSTATE_DIR (a temp
 * folder when unset and all phases run; `./.agentstate` for one phase); the payment provider
 * and the ticket desk are stand-ins that keep their records in JSON beside it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LevelSessionStore, type Clock, type WorkflowInfo } from '../src/index.js';
import { FakeClock } from '../src/testing.js';
import {
  DAY_MS,
  orderWorkflows,
  type OrderInput,
  type OrderWorkflows,
  type OrderWorld,
} from './order-flow.js';
import { runPhase, say } from './processes.js';

const USER = 'shop';
const ORDERS: OrderInput[] = [
  { orderId: 'A-100', customer: 'alice', amountUsd: 40, complaint: 'the mug is cracked' },
  { orderId: 'B-200', customer: 'bob', amountUsd: 120, complaint: 'the lamp does not turn on' },
];

/** A keyed record of the stand-in services, kept in a JSON file (their own database). */
async function keyed(file: string, key: string, make: () => string): Promise<string> {
  const records = existsSync(file)
    ? (JSON.parse(await readFile(file, 'utf8')) as Record<string, string>)
    : {};
  const found = records[key];
  if (found !== undefined) return found;
  const made = make();
  await writeFile(file, JSON.stringify({ ...records, [key]: made }, null, 2));
  return made;
}

/** The warehouse, the payment provider and the ticket desk, offline. */
function world(dir: string): OrderWorld {
  return {
    checkOrder: async ({ orderId, amountUsd }) => {
      say(`  [warehouse] order ${orderId}: paid, $${amountUsd} refundable`);
      return { ok: amountUsd <= 500, reason: `order ${orderId} is paid and damaged` };
    },
    refund: async ({ idempotencyKey, orderId, amountUsd }) => {
      const confirmation = await keyed(join(dir, 'payments.json'), idempotencyKey, () => {
        say(`  [payments] refunding $${amountUsd} for ${orderId} (key ${idempotencyKey})`);
        return `tx-${idempotencyKey}`;
      });
      return { confirmation, amountUsd };
    },
    openTicket: async ({ idempotencyKey, orderId, reason }) =>
      keyed(join(dir, 'tickets.json'), idempotencyKey, () => {
        say(`  [tickets] ticket for ${orderId}: ${reason}`);
        return `T-${orderId}`;
      }),
  };
}

const describe = (info: WorkflowInfo): string =>
  `${info.id}: ${info.status}, state ${JSON.stringify(info.value)}${info.awaitingApproval ? ', awaiting approval' : ''}`;

/** Reads order `id` every 50 ms until `test` holds (the scheduler fires in the background). */
async function until(
  orders: OrderWorkflows,
  id: string,
  test: (info: WorkflowInfo) => boolean,
): Promise<WorkflowInfo> {
  for (;;) {
    const info = await orders.get(id, { userId: USER });
    if (test(info)) return info;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function open(dir: string, clock?: Clock) {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  const orders = orderWorkflows({ store, world: world(dir), ...(clock ? { clock } : {}) });
  return {
    orders,
    close: async () => {
      await orders.close();
      await store.close();
    },
  };
}

/** Phase 1: both orders start and run until their refunds wait for a human. */
async function start(dir: string): Promise<void> {
  const { orders, close } = await open(dir);
  try {
    for (const input of ORDERS) {
      say(`Order ${input.orderId}: ${input.customer} says "${input.complaint}".`);
      // Resolves once nothing runs for the order any more: here, its refund waits for a human.
      say(describe(await orders.start(input.orderId, { input, userId: USER })));
    }
    say('Both refunds wait for approval; this process exits now.');
  } finally {
    await close();
  }
}

/** Phase 2 (a new process): approve A-100's refund by its workflow id; it pays and ends. */
async function approve(dir: string): Promise<void> {
  const { orders, close } = await open(dir);
  try {
    const { workflows: active } = await orders.list({ userId: USER, status: 'active' });
    say(`Open orders: ${active.map((w) => w.id).join(', ')}.`);
    for (const call of await orders.approvals('A-100', { userId: USER })) {
      say(`Approving ${call.toolName} ${JSON.stringify(call.arguments)} of A-100.`);
      // Resolves once applied and nothing runs any more: the agent finished, the payment ran.
      const done = await orders.approve('A-100', call.callId, { userId: USER });
      say(`${describe(done)}: ${JSON.stringify(done.output)}`);
    }
  } finally {
    await close();
  }
}

/** Phase 3 (three days later): B-200's timeout escalates it; a manager decides; it pays. */
async function later(dir: string): Promise<void> {
  // Nobody waits three days in an example: a clock set three days and an hour ahead stands in.
  const { orders, close } = await open(
    dir,
    new FakeClock(Date.now() + 3 * DAY_MS + 60 * 60 * 1000),
  );
  const scheduler = orders.startScheduler();
  try {
    say('Three days later, the scheduler runs.');
    const escalated = await until(
      orders,
      'B-200',
      (i) => JSON.stringify(i.value) === '{"escalated":"awaitingManager"}',
    );
    const { ticket } = escalated.context as { ticket?: string };
    say(`${describe(escalated)}, ticket ${String(ticket)}`);
    const done = await orders.send(
      'B-200',
      { type: 'MANAGER_DECISION', approve: true, amountUsd: 100 },
      { userId: USER, eventId: 'manager-decision-B-200' },
    );
    say(`${describe(done)}: ${JSON.stringify(done.output)}`);
  } finally {
    await scheduler.stop();
    await close();
  }
}

const PHASES: Record<string, (dir: string) => Promise<void>> = { start, approve, later };

async function main(): Promise<void> {
  const phase = process.argv[2] ?? 'all';
  const given = process.env['AGENTSTATE_DIR'];
  const dir =
    given ??
    (phase === 'all' ? await mkdtemp(join(tmpdir(), 'agentstate-orders-')) : './.agentstate');
  try {
    if (phase === 'all') {
      say(`Running the three phases in three processes; data in ${dir}.`);
      for (const name of Object.keys(PHASES))
        await runPhase(fileURLToPath(import.meta.url), dir, name);
    } else {
      const run = PHASES[phase];
      if (!run) throw new Error(`unknown phase "${phase}"`);
      await run(dir);
    }
  } finally {
    if (!given && phase === 'all') await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
