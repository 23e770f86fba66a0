import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { Agent, SessionRuntime } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { annWaitsForRefund } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

/** Ann's session `s1` waits for a refund approval deep in a sub-agent; Bob's `b1` is done. */
async function twoUsers() {
  const { temp, fixture, runtime, paused } = await annWaitsForRefund(temps);
  await fixture.triage.run('order o-2 status?', { sessionId: 'b1', userId: 'bob' });
  const start = async (options: { userId?: string; allUsers?: boolean }) => {
    const inspector = await startInspector({ runtime, ...options });
    open.push(inspector);
    return inspectorClient(inspector);
  };
  return { temp, runtime, fixture, paused, start };
}

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('startInspector: reads', () => {
  it("serves one user's sessions, refuses another user's without allUsers, and hides them as not found", async () => {
    const { start } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    const list = await ann.get('/api/sessions');
    expect(list.status).toBe(200);
    expect(
      (list.json as { sessions: { sessionId: string }[] }).sessions.map((s) => s.sessionId),
    ).toEqual(['s1']);
    // the sub-agent's refund waits for a decision: the listing counts it
    expect((list.json as { sessions: { pendingApprovals: number }[] }).sessions[0]).toMatchObject({
      pendingApprovals: 1,
    });
    expect((await ann.get('/api/sessions?user=bob')).status).toBe(403);
    expect(errorCode((await ann.get('/api/sessions?user=bob')).json)).toBe('FORBIDDEN_USER');
    const bobs = await ann.get('/api/sessions/b1');
    expect(bobs.status).toBe(404);
    expect(errorCode(bobs.json)).toBe('SESSION_NOT_FOUND');
    const done = await ann.get('/api/sessions?status=completed');
    expect((done.json as { sessions: unknown[] }).sessions).toEqual([]);
    const bad = await ann.get('/api/sessions?status=finished');
    expect([bad.status, errorCode(bad.json)]).toEqual([400, 'BAD_REQUEST']);
    expect((await ann.get('/api/sessions?limit=0')).status).toBe(400);

    const all = await start({ allUsers: true });
    const bob = await all.get('/api/sessions?user=bob');
    expect(
      (bob.json as { sessions: { sessionId: string }[] }).sessions.map((s) => s.sessionId),
    ).toEqual(['b1']);
    // the anonymous bucket is a partition of its own
    expect((await all.get('/api/sessions')).json).toMatchObject({ sessions: [] });
    expect((await all.get('/api/sessions/s1')).status).toBe(404);
    expect((await all.get('/api/sessions/s1?user=ann')).status).toBe(200);
  });

  it('a session shows its state, pending approvals deep in the tree and its history; a run its timeline, sub-runs, snapshot and RunState', async () => {
    const { start, paused } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    const detail = (await ann.get('/api/sessions/s1')).json as {
      session: { state: string; version: number };
      runs: { runId: string; current: boolean }[];
      pendingApprovals: { agentPath: string[]; name: string; callId: string }[];
      history: { total: number; items: unknown[] };
    };
    expect(detail.session.state).toBe('active.running');
    expect(detail.runs).toEqual([expect.objectContaining({ runId: paused.id, current: true })]);
    expect(detail.pendingApprovals).toEqual([
      expect.objectContaining({ agentPath: ['triage', 'billing'], name: 'refund' }),
    ]);
    expect(detail.history.items.length).toBe(detail.history.total);
    const run = (await ann.get(`/api/sessions/s1/runs/${paused.id}`)).json as {
      state: string;
      tree: {
        timeline: { kind: string; startedAt: number; endedAt: number; restarts: number }[];
        children: { agentPath: string[]; state: string; timeline: { kind: string }[] }[];
      };
      snapshot: { context: { runId: string } };
      runState: { interruptions: unknown[]; runId: string };
    };
    expect(run.state).toBe('tools');
    expect(run.tree.timeline[0]).toMatchObject({ kind: 'model', restarts: 0 });
    expect(run.tree.timeline[0]!.endedAt).toBeGreaterThanOrEqual(run.tree.timeline[0]!.startedAt);
    expect(run.tree.children).toEqual([
      expect.objectContaining({ agentPath: ['triage', 'billing'], state: 'awaitingApproval' }),
    ]);
    expect(run.tree.children[0]!.timeline.map((s) => s.kind)).toEqual([
      'model',
      'tool',
      'model',
      'approval',
    ]);
    expect((run.tree.children[0] as { decisions?: unknown }).decisions).toEqual([
      expect.objectContaining({ name: 'refund', decision: 'pending' }),
    ]);
    expect(run.snapshot.context.runId).toBe(paused.id);
    expect(run.runState.interruptions).toHaveLength(1);
    const missing = await ann.get('/api/sessions/s1/runs/nope');
    expect([missing.status, errorCode(missing.json)]).toEqual([404, 'RUN_NOT_FOUND']);
  });

  it('serves the session and run machines as charts with nested states', async () => {
    const { start } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    type Chart = { path: string; states: Chart[]; invokes: string[] };
    const charts = (await ann.get('/api/machines')).json as { session: Chart; run: Chart };
    const paths = (c: Chart): string[] => [c.path, ...c.states.flatMap(paths)];
    expect(paths(charts.run)).toEqual(
      expect.arrayContaining([
        'modelCall',
        'approvals',
        'approvals.checking',
        'awaitingApproval',
        'tools',
      ]),
    );
    expect(paths(charts.session)).toEqual(
      expect.arrayContaining(['active', 'active.running', 'active.idle']),
    );
    const checking = charts.run.states
      .find((s) => s.path === 'approvals')!
      .states.find((s) => s.path === 'approvals.checking');
    expect(checking!.invokes).toEqual(['approvalCheck']);
  });
});

describe('startInspector: actions', () => {
  it('approve lets the paused run finish; fork copies history up to a point; export gives a replay ScriptedModel loads', async () => {
    const { start, paused, fixture, temp, runtime } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    const call = paused.interruptions[0]!;
    const approved = await ann.post('/api/sessions/s1/approve', {
      callId: call.callId,
      runId: call.runId,
    });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ interrupted: false });
    expect(fixture.seen.refunds).toEqual(['o']);
    // The audit log says the decision came through the page.
    const decisions = await runtime.auditLog({ userId: 'ann', kind: 'approval' });
    expect(decisions.entries.map((e) => [e.callId, e.via])).toEqual([[call.callId, 'page']]);
    expect(
      ((await ann.get('/api/sessions/s1')).json as { session: { state: string } }).session.state,
    ).toBe('active.idle');

    const forked = await ann.post('/api/sessions/s1/fork', { newId: 's1-retry', at: 1 });
    expect(forked.json).toEqual({ sessionId: 's1-retry', parentId: 's1', historyLength: 1 });
    expect(await temp.store.readHistory({ sessionId: 's1-retry', userId: 'ann' })).toHaveLength(1);

    const exported = await ann.post('/api/sessions/s1/export', {});
    expect(exported.status).toBe(200);
    const model = ScriptedModel.fromReplay(exported.json);
    expect(model).toBeInstanceOf(ScriptedModel);
  });

  it('bad requests get typed JSON errors and change nothing', async () => {
    const { start, temp } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    const key = { sessionId: 's1', userId: 'ann' };
    const before = (await temp.store.load(key)).version;
    const cases: [string, unknown, number, string][] = [
      ['/api/sessions/s1/fork', { at: 999 }, 400, 'FORK_POSITION_OUT_OF_RANGE'],
      ['/api/sessions/s1/fork', { at: -1 }, 400, 'BAD_REQUEST'],
      ['/api/sessions/s1/approve', {}, 400, 'BAD_REQUEST'],
      ['/api/sessions/s1/approve', { callId: 'call_nope' }, 409, 'STALE_DECISION'],
      ['/api/sessions/s1/launch', {}, 404, 'NOT_FOUND'],
      ['/api/sessions/nope/cancel', {}, 404, 'SESSION_NOT_FOUND'],
      ['/api/sessions/s1/export', { runId: 'nope' }, 404, 'RUN_NOT_FOUND'],
    ];
    for (const [path, body, status, code] of cases) {
      const answer = await ann.post(path, body);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, status, code]);
    }
    const token = { 'x-agentstate-token': open.at(-1)!.token };
    const notJson = await ann.raw('POST', '/api/sessions/s1/resume', {
      body: '{nope',
      headers: token,
    });
    expect(notJson.status).toBe(400);
    expect((await ann.raw('PUT', '/api/sessions/s1/cancel', { headers: token })).status).toBe(405);
    expect((await temp.store.load(key)).version).toBe(before);
    expect(await temp.store.list({ userId: 'ann' })).toMatchObject({
      sessions: [{ sessionId: 's1' }],
    });
    // a session without a run cannot be cancelled: 409 and nothing changes
    const idle = await start({ userId: 'bob' });
    const cancel = await idle.post('/api/sessions/b1/cancel');
    expect([cancel.status, errorCode(cancel.json)]).toEqual([409, 'INVALID_SESSION_TRANSITION']);
  });

  it('cancel ends a paused run', async () => {
    const { start } = await twoUsers();
    const ann = await start({ userId: 'ann' });
    expect((await ann.post('/api/sessions/s1/cancel')).json).toEqual({
      cancelled: true,
      by: 'inspector',
    });
    const detail = (await ann.get('/api/sessions/s1')).json as {
      session: { state: string };
      pendingApprovals: unknown[];
    };
    expect(detail.session.state).toBe('active.idle');
    expect(detail.pendingApprovals).toEqual([]);
  });
});

describe('startInspector: which agent continues a run (issue 26)', () => {
  const pendingOf = async (client: ReturnType<typeof inspectorClient>, id: string) =>
    (
      (await client.get(`/api/sessions/${id}`)).json as {
        pendingApprovals: { callId: string; runId: string }[];
      }
    ).pendingApprovals;

  it('recordOnly: Approve records the decision, the run goes on when the app resumes it; Resume is refused', async () => {
    const { temp, fixture, paused } = await twoUsers();
    const cliLike = new SessionRuntime({
      store: temp.store,
      agent: new Agent({ name: 'no-model', model: new ScriptedModel([]) }),
    });
    const inspector = await startInspector({ runtime: cliLike, userId: 'ann', recordOnly: true });
    open.push(inspector);
    const ann = inspectorClient(inspector);
    expect((await ann.get('/api/info')).json).toMatchObject({ recordOnly: true, agents: [] });
    const call = paused.interruptions[0]!;

    const approved = await ann.post('/api/sessions/s1/approve', { callId: call.callId });
    expect([approved.status, approved.json]).toEqual([
      200,
      {
        recorded: true,
        callId: call.callId,
        decision: 'approved',
        note: 'recorded: the run continues when the app resumes it',
      },
    ]);
    expect(fixture.seen.refunds).toEqual([]);
    expect(await pendingOf(ann, 's1')).toEqual([]);
    const view = await fixture.triage.runtimeFor(temp.store).getSession({
      sessionId: 's1',
      userId: 'ann',
    });
    expect(view.run?.state).toBe('tools');
    const again = await ann.post('/api/sessions/s1/reject', { callId: call.callId });
    expect([again.status, errorCode(again.json)]).toEqual([409, 'ALREADY_DECIDED']);
    expect(JSON.stringify(again.json)).toContain('was already approved');

    const before = await dumpBackend(temp.store);
    const resume = await ann.post('/api/sessions/s1/resume');
    expect([resume.status, errorCode(resume.json)]).toEqual([400, 'NO_AGENT']);
    expect(await dumpBackend(temp.store)).toEqual(before);

    // The app's resume runs the recorded decision.
    const done = await fixture.triage.resume('s1', { userId: 'ann' });
    expect(done.interrupted).toBe(false);
    expect(fixture.seen.refunds).toEqual(['o']);
  });

  it("another agent's runtime refuses Approve and Resume with WRONG_AGENT; nothing stored changes", async () => {
    const { temp, fixture, paused } = await twoUsers();
    const refunder = new Agent({
      name: 'refunder',
      model: new ScriptedModel(() => ({ text: 'refunder: done' })),
    });
    const inspector = await startInspector({
      runtime: refunder.runtimeFor(temp.store),
      userId: 'ann',
    });
    open.push(inspector);
    const ann = inspectorClient(inspector);
    const before = await dumpBackend(temp.store);
    const call = paused.interruptions[0]!;
    for (const [action, body] of [
      ['approve', { callId: call.callId }],
      ['reject', { callId: call.callId, runId: call.runId }],
      ['resume', {}],
    ] as const) {
      const answer = await ann.post(`/api/sessions/s1/${action}`, body);
      expect([action, answer.status, errorCode(answer.json)]).toEqual([action, 409, 'WRONG_AGENT']);
    }
    expect(await dumpBackend(temp.store)).toEqual(before);
    expect(fixture.seen.refunds).toEqual([]);
  });

  it('agents: one inspector continues each session with the agent that runs it', async () => {
    const { temp, fixture, paused } = await twoUsers();
    const { agent: assistant, counters } = approvalAgent(temp.store);
    const email = { name: 'send_email', arguments: { to: 'a@x.io', body: 'hi' } };
    const mail = await assistant.run(callTools(email), { sessionId: 'm1', userId: 'ann' });
    const inspector = await startInspector({
      runtime: fixture.triage.runtimeFor(temp.store),
      agents: { triage: fixture.triage, assistant },
      userId: 'ann',
    });
    open.push(inspector);
    const ann = inspectorClient(inspector);
    expect((await ann.get('/api/info')).json).toMatchObject({
      recordOnly: false,
      agents: ['triage', 'assistant'],
    });
    const mailed = await ann.post('/api/sessions/m1/approve', {
      callId: mail.interruptions[0]!.callId,
    });
    expect([mailed.status, mailed.json]).toMatchObject([200, { interrupted: false }]);
    expect(counters.executed).toEqual({ send_email: 1 });
    const refunded = await ann.post('/api/sessions/s1/approve', {
      callId: paused.interruptions[0]!.callId,
    });
    expect([refunded.status, refunded.json]).toMatchObject([200, { interrupted: false }]);
    expect(fixture.seen.refunds).toEqual(['o']);

    // A session of an agent the map lacks is refused, and nothing changes.
    const again = await assistant.run(callTools(email), { sessionId: 'm2', userId: 'ann' });
    const only = await startInspector({
      runtime: assistant.runtimeFor(temp.store),
      agents: { triage: fixture.triage },
      userId: 'ann',
    });
    open.push(only);
    const before = await dumpBackend(temp.store);
    const refused = await inspectorClient(only).post('/api/sessions/m2/approve', {
      callId: again.interruptions[0]!.callId,
    });
    expect([refused.status, refused.json]).toEqual([
      409,
      {
        error: {
          code: 'WRONG_AGENT',
          message:
            'Session "m2"\'s run is run by agent "assistant", which this inspector does not serve (it serves "triage")',
        },
      },
    ]);
    expect(await dumpBackend(temp.store)).toEqual(before);
  });

  it('refuses agents that are not Agents under their own names, and agents with recordOnly', async () => {
    const { fixture, runtime } = await twoUsers();
    await expect(startInspector({ runtime, agents: { billing: fixture.triage } })).rejects.toThrow(
      /option "agents"/,
    );
    await expect(startInspector({ runtime, agents: {} })).rejects.toThrow(/option "agents"/);
    await expect(
      startInspector({ runtime, agents: { triage: fixture.triage }, recordOnly: true }),
    ).rejects.toThrow('startInspector(): "recordOnly" and "agents" exclude each other');
  });
});
