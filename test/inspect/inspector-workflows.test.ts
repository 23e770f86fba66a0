import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromPromise, setup } from 'xstate';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { Agent, tool, workflows, type SessionStore } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { emptyTotals } from '../../src/persistence/session-store.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

const T0 = 1_700_000_000_000;
/** The session of the agent `o-1` invoked in `refunding.drafting`, as its host names it. */
const LINKED = 'workflow:o-1/0.order.refunding.drafting';
const THREE_DAYS = 3 * 24 * 3600 * 1000;

/** The app's order machine: validate, an agent drafts a refund (3 days to answer), pay. */
const orderMachine = setup({
  actors: {
    validate: fromPromise(async () => ({ ok: true })),
    drafter: fromPromise(async () => 'drafted'),
    pay: fromPromise(async () => 'paid'),
  },
}).createMachine({
  id: 'order',
  initial: 'validating',
  states: {
    validating: { invoke: { src: 'validate', onDone: 'refunding', onError: 'rejected' } },
    refunding: {
      initial: 'drafting',
      states: {
        drafting: {
          invoke: { src: 'drafter', onDone: '#order.paying' },
          after: { [THREE_DAYS]: '#order.escalated' },
        },
      },
    },
    paying: { invoke: { src: 'pay', onDone: 'done' } },
    escalated: { on: { RESOLVE: 'done' } },
    rejected: { type: 'final' },
    done: { type: 'final' },
  },
});

/**
 * Ann's order `o-1` as its host stores it (`{ format, machine, host }`, journal `event` and
 * `step` entries): validated, now in `refunding.drafting`, where its drafter agent's session
 * waits for a human to approve a refund.
 */
async function annOrder(store: SessionStore) {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order',
    parameters: z.object({ orderId: z.string() }),
    needsApproval: true,
    execute: ({ orderId }) => `refunded ${orderId}`,
  });
  const drafter = new Agent({
    name: 'drafter',
    store,
    model: new ScriptedModel((request) =>
      lastResult(request) !== undefined
        ? { text: 'refund drafted' }
        : { toolCalls: [{ name: 'refund', arguments: { orderId: 'o-1' } }] },
    ),
    tools: [refund],
  });
  const paused = await drafter.run('refund o-1', { sessionId: LINKED, userId: 'ann' });
  expect(paused.interrupted).toBe(true);
  const key = { sessionId: 'workflow:o-1', userId: 'ann' };
  const created = await store.create({
    ...key,
    workflow: 'orders',
    status: 'active',
    createdAt: T0,
    updatedAt: T0,
    parentId: undefined,
    historyLength: 0,
    usage: emptyTotals(),
    awaitingApproval: true,
    approvalDeadline: T0 + THREE_DAYS,
    machineVersion: 'workflow/orders@1',
    snapshot: {
      format: 1,
      machine: {
        status: 'active',
        value: { refunding: 'drafting' },
        context: { orderId: 'o-1' },
        children: {},
        historyValue: {},
      },
      host: {
        runId: 'wf-run-1',
        fingerprint: 'f1',
        version: 1,
        states: [
          'validating',
          'refunding',
          'refunding.drafting',
          'paying',
          'escalated',
          'rejected',
          'done',
        ],
        seq: 3,
        steps: {},
        timers: [
          {
            id: 't1',
            source: 'refunding.drafting',
            target: 'order',
            event: { type: `xstate.after.${THREE_DAYS}.order.refunding.drafting` },
            dueAt: T0 + THREE_DAYS,
          },
        ],
        events: [],
        links: {
          '0.order.refunding.drafting': { kind: 'agent', name: 'drafter', id: LINKED },
        },
      },
    },
  });
  await store.save({
    record: { ...created, updatedAt: T0 + 50 },
    items: [],
    journal: [
      {
        runId: 'wf-run-1',
        step: 0,
        kind: 'event',
        at: T0,
        output: { source: 'start', type: 'xstate.init', value: 'validating', status: 'active' },
      },
      {
        runId: 'wf-run-1',
        step: 1,
        kind: 'step',
        at: T0 + 40,
        startedAt: T0 + 1,
        output: {
          name: 'validate',
          actorId: '0.order.validating',
          outcome: 'done',
          output: { ok: true },
        },
      },
      {
        runId: 'wf-run-1',
        step: 2,
        kind: 'event',
        at: T0 + 41,
        output: {
          source: 'step',
          type: 'xstate.done.actor.0.order.validating',
          value: { refunding: 'drafting' },
          status: 'active',
        },
      },
    ],
  });
  return { drafter, key };
}

/** A host of `orders` that records the decisions it is asked for. */
function recordingHost(name = 'orders') {
  const calls: { action: string; id: string; callId: string; options: unknown }[] = [];
  return {
    calls,
    host: {
      name,
      machine: orderMachine,
      approve: async (id: string, callId: string, options: unknown) => {
        calls.push({ action: 'approve', id, callId, options });
        return { id, value: 'paying' };
      },
      reject: async (id: string, callId: string, options: unknown) => {
        calls.push({ action: 'reject', id, callId, options });
        return { id, value: 'paying' };
      },
    },
  };
}

async function setUp(hostName = 'orders') {
  const temp = await temps.open();
  const { drafter, key } = await annOrder(temp.store);
  const { host, calls } = recordingHost(hostName);
  const inspector = await startInspector({
    runtime: drafter.runtimeFor(temp.store),
    userId: 'ann',
    workflows: [host],
  });
  open.push(inspector);
  return { store: temp.store, key, calls, client: inspectorClient(inspector), inspector };
}

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('startInspector: workflow instances', () => {
  it("serves an instance with the app's chart, the path it took with times, its steps and timers, and its agent session under the state that invoked it", async () => {
    const { client } = await setUp();
    expect((await client.get('/api/info')).json).toMatchObject({ workflows: ['orders'] });
    const answer = await client.get('/api/workflows/o-1');
    expect(answer.status).toBe(200);
    const detail = answer.json as {
      workflow: { id: string; workflow: string; status: string };
      state: string;
      graph: {
        states: { path: string; invokes: { id: string; src: string }[] }[];
        edges: { from: string; event: string; targets: string[] }[];
      };
      path: { step: number; at: number; type: string; state: string }[];
      steps: { name: string; state: string; outcome: string; output: unknown }[];
      timers: { dueAt: number }[];
      sessions: { sessionId: string; state: string; pendingApprovals: { name: string }[] }[];
    };
    expect(detail.workflow).toMatchObject({ id: 'o-1', workflow: 'orders', status: 'active' });
    expect(detail.state).toBe('refunding.drafting');
    // The chart is the app's machine: its states, nested ones too, and its transitions named
    // as the chart labels them (an invoked actor's end, a delay, an event).
    expect(detail.graph.states.map((s) => s.path)).toEqual([
      '',
      'validating',
      'refunding',
      'refunding.drafting',
      'paying',
      'escalated',
      'rejected',
      'done',
    ]);
    expect(detail.graph.edges).toEqual(
      expect.arrayContaining([
        { from: 'validating', event: 'onDone(validate)', targets: ['refunding'] },
        { from: 'refunding.drafting', event: `after(${THREE_DAYS})`, targets: ['escalated'] },
        { from: 'escalated', event: 'RESOLVE', targets: ['done'] },
      ]),
    );
    expect(detail.path).toEqual([
      expect.objectContaining({ step: 0, at: T0, type: 'xstate.init', state: 'validating' }),
      expect.objectContaining({ step: 2, at: T0 + 41, state: 'refunding.drafting' }),
    ]);
    expect(detail.steps).toEqual([
      expect.objectContaining({
        name: 'validate',
        state: 'validating',
        outcome: 'done',
        output: { ok: true },
      }),
    ]);
    expect(detail.timers).toEqual([expect.objectContaining({ dueAt: T0 + THREE_DAYS })]);
    expect(detail.sessions).toEqual([
      expect.objectContaining({
        sessionId: LINKED,
        state: 'refunding.drafting',
        pendingApprovals: [expect.objectContaining({ name: 'refund' })],
      }),
    ]);
  });

  it("lists the user's instances apart from sessions; another user's instance is not found and another user is refused", async () => {
    const { client, store } = await setUp();
    await store.create({
      sessionId: 'workflow:o-9',
      userId: 'bob',
      workflow: 'orders',
      status: 'active',
      createdAt: T0,
      updatedAt: T0,
      parentId: undefined,
      historyLength: 0,
      usage: emptyTotals(),
      machineVersion: 'workflow/orders@1',
      snapshot: { format: 1, machine: { status: 'active', value: 'validating' }, host: {} },
    });
    const list = await client.get('/api/workflows');
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({
      workflows: [{ id: 'o-1', workflow: 'orders', state: 'refunding.drafting' }],
    });
    expect((await client.get('/api/workflows?user=bob')).status).toBe(403);
    const bobs = await client.get('/api/workflows/o-9');
    expect(bobs.status).toBe(404);
    expect(errorCode(bobs.json)).toBe('WORKFLOW_NOT_FOUND');
    const bad = await client.get('/api/workflows?run=waiting');
    expect(bad.status).toBe(400);
    expect(errorCode(bad.json)).toBe('BAD_REQUEST');
  });

  it('approves and rejects a call its agent waits for through the host, once each', async () => {
    const { client, calls } = await setUp();
    const approved = await client.post('/api/workflows/o-1/approve', { callId: 'call-1' });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ callId: 'call-1', decision: 'approved' });
    const rejected = await client.post('/api/workflows/o-1/reject', {
      callId: 'call-2',
      message: 'too much',
    });
    expect(rejected.status).toBe(200);
    expect(calls).toEqual([
      { action: 'approve', id: 'o-1', callId: 'call-1', options: { userId: 'ann' } },
      {
        action: 'reject',
        id: 'o-1',
        callId: 'call-2',
        options: { userId: 'ann', message: 'too much' },
      },
    ]);
  });

  it("sends a decision on the agent's own session through the workflow's host, and says whose agent it is", async () => {
    const { client, calls, store } = await setUp();
    const path = `/api/sessions/${encodeURIComponent(LINKED)}`;
    expect((await client.get(path)).json).toMatchObject({
      workflow: { id: 'o-1', workflow: 'orders', actorId: '0.order.refunding.drafting' },
    });
    const before = await store.load({ sessionId: LINKED, userId: 'ann' });
    const answer = await client.post(`${path}/approve`, { callId: 'call-1', runId: 'r' });
    expect(answer.status).toBe(200);
    expect(calls).toEqual([
      { action: 'approve', id: 'o-1', callId: 'call-1', options: { userId: 'ann' } },
    ]);
    // The session itself was not continued here: the host decides.
    expect(await store.load({ sessionId: LINKED, userId: 'ann' })).toEqual(before);
    // A session merely named like one (no instance links it) is a session like any other.
    expect((await client.get(`/api/sessions/${encodeURIComponent('workflow:o-1/x')}`)).status).toBe(
      404,
    );
  });

  it('refuses bad decisions with typed 4xx answers and changes nothing stored', async () => {
    const { client, calls, store, key, inspector } = await setUp();
    const before = await store.load(key);
    const cases: [string, unknown, number, string][] = [
      ['/api/workflows/o-1/approve', {}, 400, 'BAD_REQUEST'],
      ['/api/workflows/o-1/approve', { callId: 7 }, 400, 'BAD_REQUEST'],
      ['/api/workflows/o-1/approve', { callId: 'c', message: 'no' }, 400, 'BAD_REQUEST'],
      ['/api/workflows/o-1/approve', [1], 400, 'BAD_REQUEST'],
      ['/api/workflows/o-1/delete', { callId: 'c' }, 404, 'NOT_FOUND'],
      ['/api/workflows/o-1/constructor', { callId: 'c' }, 404, 'NOT_FOUND'],
      ['/api/workflows/o-1/approve/x', { callId: 'c' }, 404, 'NOT_FOUND'],
      ['/api/workflows/o-2/approve', { callId: 'c' }, 404, 'WORKFLOW_NOT_FOUND'],
      [
        `/api/workflows/${encodeURIComponent(LINKED.slice('workflow:'.length))}/approve`,
        { callId: 'c' },
        404,
        'WORKFLOW_NOT_FOUND',
      ],
    ];
    for (const [path, body, status, code] of cases) {
      const answer = await client.post(path, body);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, status, code]);
    }
    // From another site (the page's cookie would ride along): refused before anything runs.
    const foreign = await client.post(
      '/api/workflows/o-1/approve',
      { callId: 'c' },
      { 'x-agentstate-token': inspector.token, origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(calls).toEqual([]);
    expect(await store.load(key)).toEqual(before);
  });

  it('shows an instance of a workflow it does not host without a chart, and refuses to act on it (409 WRONG_WORKFLOW)', async () => {
    const { client, calls } = await setUp('invoices');
    const detail = await client.get('/api/workflows/o-1');
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ graph: null, state: 'refunding.drafting' });
    const refused = await client.post('/api/workflows/o-1/approve', { callId: 'c' });
    expect(refused.status).toBe(409);
    expect(errorCode(refused.json)).toBe('WRONG_WORKFLOW');
    expect(calls).toEqual([]);
  });

  it("reads an instance as its host stored it: the path is the host's journal, the state its own", async () => {
    const temp = await temps.open();
    const clock = new FakeClock();
    const steps = { check: fromPromise(async () => 'ok') };
    const machine = setup({ actors: steps }).createMachine({
      id: 'ticket',
      initial: 'checking',
      states: {
        checking: { invoke: { src: 'check', onDone: 'open' } },
        open: { on: { CLOSE: 'closed' } },
        closed: { type: 'final' },
      },
    });
    const tickets = workflows(machine, { name: 'tickets', store: temp.store, clock, steps });
    await tickets.start('t-1', { userId: 'ann' });
    await tickets.send('t-1', { type: 'CLOSE' }, { userId: 'ann', eventId: 'close-1' });
    const runtime = new Agent({
      name: 'desk',
      store: temp.store,
      model: new ScriptedModel(() => ({ text: 'hi' })),
    }).runtimeFor(temp.store);
    const inspector = await startInspector({ runtime, userId: 'ann', workflows: [tickets] });
    open.push(inspector);
    const detail = (await inspectorClient(inspector).get('/api/workflows/t-1')).json as {
      workflow: { status: string };
      state: string;
      path: {
        step: number;
        at: number;
        source: string;
        type: string;
        eventId?: string;
        state: string;
      }[];
      steps: { name: string; state: string; outcome: string }[];
    };
    const journal = (await tickets.journal('t-1', { userId: 'ann' })).filter(
      (e) => e.kind === 'event',
    );
    expect(detail.path.map((h) => [h.step, h.at])).toEqual(journal.map((e) => [e.step, e.at]));
    expect(detail.path.map((h) => [h.source, h.state])).toEqual([
      ['start', 'checking'],
      ['step', 'open'],
      ['send', 'closed'],
    ]);
    expect(detail.path[2]).toMatchObject({ type: 'CLOSE', eventId: 'close-1' });
    expect(detail.steps).toEqual([
      expect.objectContaining({ name: 'check', state: 'checking', outcome: 'done' }),
    ]);
    expect(detail).toMatchObject({ state: 'closed', workflow: { status: 'completed' } });
    await tickets.close();
  });

  it('refuses bad workflows options with a TypeError naming the option', async () => {
    const temp = await temps.open();
    const { drafter } = await annOrder(temp.store);
    const runtime = drafter.runtimeFor(temp.store);
    const { host } = recordingHost();
    for (const workflows of [host, [{ name: 'orders' }], [host, host]]) {
      await expect(startInspector({ runtime, workflows } as never)).rejects.toThrow(
        /startInspector\(\): option "workflows"/,
      );
    }
  });
});
