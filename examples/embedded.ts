/**
 * An agent embedded in the app's own statechart: an order machine (assisting → refunded |
 * kept) invokes a support agent in its `assisting` state, like any actor. The agent's refund
 * needs a human's approval, and the order machine has its own state for that wait
 * (`assisting.awaitingApproval`, entered through `invoke.onSnapshot` on the agent's
 * `context.phase`, with the calls to decide kept in the order's context). The app persists
 * its own actor's snapshot (the agent's nests in it) and the process exits; a second process
 * restores the order actor, approves by sending it an event, and the order ends `refunded`.
 *
 *   npx tsx examples/embedded.ts            # both phases, each in its own child process
 *   npx tsx examples/embedded.ts request    # phase 1 only: run until the approval pause
 *   npx tsx examples/embedded.ts approve    # phase 2 only: restore, approve, finish
 *
 * Offline: the model is scripted. The agent's sessions live in LevelDB under AGENTSTATE_DIR;
 * the order actor's snapshot is kept beside it as JSON, as an app would keep it in its own DB.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assign, createActor, sendTo, setup, waitFor, type StateValue } from 'xstate';
import { z } from 'zod';
import { Agent, LevelSessionStore, tool, type ModelRequest } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';
import { runTwoPhases, say } from './processes.js';

const refund = tool({
  name: 'refund',
  description: 'Refunds an order to the card it was paid with',
  parameters: z.object({ order: z.string(), amountUsd: z.number().positive() }),
  needsApproval: true,
  execute: ({ order, amountUsd }) => {
    say(`  [agent] refunding $${amountUsd} for ${order}`);
    return `refunded $${amountUsd} for ${order}`;
  },
});

function lastResult(request: ModelRequest): string | undefined {
  const last = request.items[request.items.length - 1];
  return last?.type === 'tool_result' ? last.output : undefined;
}

function supportAgent(store: LevelSessionStore): Agent {
  const model = new ScriptedModel((request) => {
    const result = lastResult(request);
    return result === undefined
      ? { toolCalls: [{ name: 'refund', arguments: { order: 'B-12', amountUsd: 19.9 } }] }
      : { text: `I ${result}.` };
  });
  return new Agent({ name: 'support', model, tools: [refund], store });
}

/** A call the agent waits on, as the order keeps it for the human who decides. */
type PendingCall = { callId: string; toolName: string };

/** The app's own order statechart; the agent is one actor among its states. */
function orderMachine(agent: Agent) {
  return setup({
    types: {
      context: {} as { order: string; reply: unknown; pending: PendingCall[] },
      events: {} as { type: 'APPROVE_REFUND'; callId: string },
    },
    actors: { support: agent.asActor() },
  }).createMachine({
    id: 'order',
    context: { order: 'B-12', reply: undefined, pending: [] },
    initial: 'assisting',
    states: {
      assisting: {
        // The order's own states while the agent works: the agent's snapshot says which.
        initial: 'working',
        states: { working: {}, awaitingApproval: {} },
        invoke: {
          id: 'support',
          src: 'support',
          input: ({ context }) => ({
            input: `Customer says order ${context.order} arrived broken and wants a refund.`,
            sessionId: `order-${context.order}`,
            userId: 'shop',
          }),
          onSnapshot: [
            {
              guard: ({ event }) => event.snapshot.context.phase === 'awaitingApproval',
              target: '.awaitingApproval',
              actions: assign({
                pending: ({ event }) =>
                  event.snapshot.context.interruptions.map(({ callId, toolName }) => ({
                    callId,
                    toolName,
                  })),
              }),
            },
            {
              guard: ({ event }) => event.snapshot.context.phase === 'running',
              target: '.working',
              actions: assign({ pending: [] }),
            },
          ],
          onDone: {
            target: 'refunded',
            actions: assign({ reply: ({ event }) => event.output.output }),
          },
          onError: 'kept',
        },
        on: {
          APPROVE_REFUND: {
            actions: sendTo('support', ({ event }) => ({
              type: 'agent.approve' as const,
              callId: event.callId,
            })),
          },
        },
      },
      refunded: { type: 'final' },
      kept: { type: 'final' },
    },
  });
}

const snapshotFile = (dir: string): string => join(dir, 'order-actor.json');

/** A state value as a path: `assisting.awaitingApproval`. */
const stateOf = (value: StateValue): string =>
  typeof value === 'string'
    ? value
    : Object.entries(value)
        .map(([key, child]) => (child ? `${key}.${stateOf(child)}` : key))
        .join(', ');

/** Phase 1: the order machine runs until its agent waits for the refund's approval. */
async function request(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const order = createActor(orderMachine(supportAgent(store))).start();
    say(`Order B-12 is in state "${stateOf(order.getSnapshot().value)}"; the agent works on it.`);
    const waiting = await waitFor(order, (s) => !s.matches({ assisting: 'working' }));
    say(`Order B-12 is in state "${stateOf(waiting.value)}".`);
    for (const call of waiting.context.pending)
      say(`The agent waits for approval of ${call.toolName}.`);
    await writeFile(snapshotFile(dir), JSON.stringify(order.getPersistedSnapshot(), null, 2));
    order.stop();
    say('The order actor is persisted; this process exits now.');
  } finally {
    await store.close();
  }
}

/** Phase 2 (a new process): restore the order actor, approve, and let the order finish. */
async function approve(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const persisted = JSON.parse(await readFile(snapshotFile(dir), 'utf8')) as object;
    const order = createActor(orderMachine(supportAgent(store)), { snapshot: persisted as never });
    order.start();
    const restored = order.getSnapshot();
    say(`Restored order B-12 in state "${stateOf(restored.value)}".`);
    for (const call of restored.context.pending) {
      say(`Approving ${call.toolName}.`);
      order.send({ type: 'APPROVE_REFUND', callId: call.callId });
    }
    const done = await waitFor(order, (s) => s.status === 'done');
    say(`Order B-12 ended "${stateOf(done.value)}": ${String(done.context.reply)}`);
    await rm(snapshotFile(dir), { force: true });
  } finally {
    await store.close();
  }
}

runTwoPhases({
  file: fileURLToPath(import.meta.url),
  tempPrefix: 'agentstate-embedded-',
  first: ['request', request],
  second: ['approve', approve],
  between: 'The first process has exited. Starting a new one to approve the refund.',
}).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
