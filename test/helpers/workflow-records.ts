import { z } from 'zod';
import { Agent, LevelSessionStore, tool } from '../../src/index.js';
import {
  emptyTotals,
  type JournalEntry,
  type SessionRecord,
  type SessionStore,
} from '../../src/persistence/session-store.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';

/** When the fixture's instances were written (the clock every record and entry reads). */
export const T0 = Date.UTC(2026, 10, 28, 9, 0);
/** The due time of `order-1`'s escalation timer: three days after it started. */
export const ESCALATE_AT = T0 + 3 * 24 * 3600_000;

const refund = tool({
  name: 'refund',
  description: 'Refunds an order',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `refunded ${amount}`,
});

/** The drafting agent `order-1` invoked: its first turn asks to refund, which waits on approval. */
function drafter(store: SessionStore, clock: FakeClock) {
  const model = new ScriptedModel(() => ({
    toolCalls: [{ name: 'refund', arguments: { amount: 40 }, callId: 'c-refund' }],
  }));
  return new Agent({ name: 'drafter', model, tools: [refund], store, clock });
}

function instance(
  id: string,
  userId: string,
  status: SessionRecord['status'],
  machine: Record<string, unknown>,
  host: Record<string, unknown>,
  extra: Partial<SessionRecord> = {},
): Omit<SessionRecord, 'version'> {
  return {
    sessionId: `workflow:${id}`,
    userId,
    workflow: 'orders',
    status,
    createdAt: T0,
    updatedAt: T0 + 60_000,
    parentId: undefined,
    historyLength: 0,
    usage: emptyTotals(),
    machineVersion: 'workflow/orders@1',
    snapshot: {
      format: 1,
      machine: { children: {}, historyValue: {}, ...machine },
      host: {
        fingerprint: 'f1',
        version: 1,
        steps: {},
        timers: [],
        events: [],
        links: {},
        ...host,
      },
    },
    ...extra,
  };
}

const event = (step: number, at: number, output: Record<string, unknown>): JournalEntry => ({
  runId: 'wf-run-1',
  step,
  kind: 'event',
  output,
  at,
});

/** A LevelDB folder holding the instances of {@link writeWorkflows}; closed when it returns. */
export async function writeWorkflowFolder(path: string): Promise<void> {
  const store = await LevelSessionStore.open({ path });
  try {
    await writeWorkflows(store);
  } finally {
    await store.close();
  }
}

/**
 * Writes to `store` workflow instances in the stored layout of `workflows()` (the
 * record `workflow:<id>`, its snapshot envelope, its journal): alice's `order-1` (waiting for
 * its refund's approval in `refund.drafting`, a step in flight, an escalation timer, the
 * drafting agent's session `order-1~drafter` with call `c-refund` pending) and `order-2`
 * (completed); bob's `order-b`; and alice's plain session `chat`.
 */
export async function writeWorkflows(store: SessionStore): Promise<void> {
  const clock = new FakeClock(T0);
  await drafter(store, clock).run('draft a refund for order o-1', {
    sessionId: 'order-1~drafter',
    userId: 'alice',
  });
  const one = await store.create(
    instance(
      'order-1',
      'alice',
      'active',
      {
        value: { refund: 'drafting' },
        status: 'active',
        context: { orderId: 'o-1', amount: 40 },
      },
      {
        runId: 'wf-run-1',
        seq: 3,
        steps: { check: { step: 3, name: 'checkStock', startedAt: T0 + 30_000 } },
        timers: [
          {
            id: 'escalate',
            source: 'order',
            target: 'order',
            event: { type: 'xstate.after.259200000.order.refund' },
            dueAt: ESCALATE_AT,
          },
        ],
        events: ['paid-1'],
        links: { drafter: { sessionId: 'order-1~drafter' } },
      },
      { approvalDeadline: ESCALATE_AT, awaitingApproval: true },
    ),
  );
  await store.save({
    record: one,
    items: [],
    journal: [
      event(0, T0, {
        source: 'start',
        type: 'xstate.init',
        value: 'validating',
        status: 'active',
      }),
      event(1, T0 + 10_000, {
        source: 'step',
        type: 'xstate.done.actor.validate',
        value: 'awaitingPayment',
        status: 'active',
      }),
      event(2, T0 + 20_000, {
        source: 'send',
        type: 'PAID',
        eventId: 'paid-1',
        value: { refund: 'drafting' },
        status: 'active',
      }),
    ],
  });
  await store.create(
    instance(
      'order-2',
      'alice',
      'completed',
      { value: 'shipped', status: 'done', context: { orderId: 'o-2' }, output: { ok: true } },
      { runId: 'wf-run-2', seq: 1 },
    ),
  );
  await store.create(
    instance(
      'order-b',
      'bob',
      'active',
      { value: 'validating', status: 'active', context: { orderId: 'o-b' } },
      { runId: 'wf-run-b', seq: 0 },
    ),
  );
  await new Agent({ name: 'chat', model: new ScriptedModel([{ text: 'hi' }]), store, clock }).run(
    'hello',
    { sessionId: 'chat', userId: 'alice' },
  );
}
