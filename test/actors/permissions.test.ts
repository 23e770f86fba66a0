import { afterEach, describe, expect, it } from 'vitest';
import {
  LevelSessionStore,
  PermissionCheckError,
  RunState,
  SessionRuntime,
  getRunContext,
  sendMessage,
  type PermissionCall,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionScope,
  type ToolResultItem,
} from '../../src/index.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'perm', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };

interface Asked {
  call: PermissionCall;
  scope: PermissionScope;
  context: { runId: string; userId: string | undefined; sessionId: string | undefined };
}

/** A policy deciding by tool name, recording every question and the RunContext it saw. */
function policy(decide: (call: PermissionCall) => PermissionDecision) {
  const asked: Asked[] = [];
  const permissions: PermissionPolicy = {
    async check(call, scope) {
      const context = getRunContext();
      asked.push({
        call,
        scope,
        context: { runId: context.runId, userId: context.userId, sessionId: context.sessionId },
      });
      await Promise.resolve();
      return decide(call);
    },
  };
  return { permissions, asked };
}

const results = (items: { type: string }[]): ToolResultItem[] =>
  items.filter((i): i is ToolResultItem => i.type === 'tool_result');

describe('permissions', () => {
  it('a denied call never runs: the model reads the reason as a tool error, the decision is journaled', async () => {
    const { store } = await temps.open();
    const { permissions, asked } = policy((c) =>
      c.name === 'lookup' ? { deny: 'lookups are off today' } : 'allow',
    );
    const { agent, counters } = approvalAgent(store, { permissions });
    const result = await agent.run(
      callTools(
        { name: 'lookup', arguments: { word: 'x' } },
        { name: 'lookup', arguments: { word: 'y' } },
      ),
      opts,
    );
    expect(result.interrupted).toBe(false);
    expect(counters.executed).toEqual({});
    const denied = results(await store.readHistory(key));
    expect(denied).toHaveLength(2);
    for (const r of denied) {
      expect(r.isError).toBe(true);
      expect(r.output).toBe('Permission denied for "lookup": lookups are off today');
    }
    expect(result.output).toContain('lookup (error): Permission denied');
    expect(asked.map((a) => a.call)).toEqual([
      { name: 'lookup', callId: 'call_1_0', arguments: { word: 'x' } },
      { name: 'lookup', callId: 'call_1_1', arguments: { word: 'y' } },
    ]);
    expect(asked[0]!.scope).toEqual({
      userId: 'alice',
      sessionId: 'perm',
      runId: result.id,
      agentPath: ['assistant'],
    });
    // getRunContext() inside the check is the run's context.
    expect(asked[0]!.context).toEqual({ runId: result.id, userId: 'alice', sessionId: 'perm' });
    const check = (await store.readRunJournal(key, result.id)).find((e) => e.kind === 'approval');
    expect(check?.output).toMatchObject({
      decisions: [
        { callId: 'call_1_0', permission: 'deny', denyReason: 'lookups are off today' },
        { callId: 'call_1_1', permission: 'deny' },
      ],
    });
  });

  it('allow lets a call run (its own needsApproval still applies)', async () => {
    const { store } = await temps.open();
    const { permissions, asked } = policy(() => 'allow');
    const { agent, counters } = approvalAgent(store, { permissions });
    const result = await agent.run(
      callTools(
        { name: 'lookup', arguments: { word: 'x' } },
        { name: 'send_email', arguments: { to: 'bob', body: 'hi' } },
      ),
      opts,
    );
    expect(asked).toHaveLength(2);
    // The turn's calls run once no call waits: send_email's approval is pending.
    expect(counters.executed).toEqual({});
    expect(result.interruptions.map((i) => i.toolName)).toEqual(['send_email']);
  });

  it('ask becomes an approval interruption; the check is never evaluated again on resume in a reopened store', async () => {
    const temp = await temps.open();
    const first = policy((c) => (c.name === 'lookup' ? 'ask' : 'allow'));
    const { agent } = approvalAgent(temp.store, { permissions: first.permissions });
    const paused = await agent.run(callTools({ name: 'lookup', arguments: { word: 'x' } }), opts);
    expect(paused.interrupted).toBe(true);
    expect(paused.interruptionReason).toBe('approval');
    expect(paused.interruptions.map((i) => i.toolName)).toEqual(['lookup']);
    expect(first.asked).toHaveLength(1);
    const state = paused.state.toString();
    await temp.store.close();

    // A reopened store, a new agent and a new policy: the journaled decision stands.
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = policy(() => ({ deny: 'would deny now' }));
    const again = approvalAgent(store, { permissions: second.permissions });
    const done = await again.agent.resume(
      RunState.fromJSON(state).approve(paused.interruptions[0]!.callId),
      { userId: key.userId },
    );
    expect(second.asked).toHaveLength(0);
    expect(again.counters.executed).toEqual({ lookup: 1 });
    expect(done.output).toBe('Done. lookup: x: found');
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('policy service down');
      },
      'policy service down',
    ],
    [
      'returns something else',
      () => 'yes' as unknown as PermissionDecision,
      "expected 'allow', 'ask' or { deny: reason }",
    ],
  ])(
    'a check that %s fails the run with PERMISSION_CHECK_FAILED and runs nothing',
    async (_, check, text) => {
      const { store } = await temps.open();
      const { agent, counters } = approvalAgent(store, { permissions: { check } });
      const error = (await agent
        .run(callTools({ name: 'lookup', arguments: { word: 'x' } }), opts)
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as PermissionCheckError;
      expect(error.code).toBe('PERMISSION_CHECK_FAILED');
      expect(error.message).toContain(text);
      expect(counters.executed).toEqual({});
      expect(new PermissionCheckError('t', new Error('x')).code).toBe('PERMISSION_CHECK_FAILED');
    },
  );

  it('runs inside sub-agents with their agent path and context; the runtime policy composes (strictest wins)', async () => {
    const { store } = await temps.open();
    const top = policy(() => 'allow');
    const own = policy((c) =>
      c.name === 'lookup' ? { deny: 'billing may not look up' } : 'allow',
    );
    const { triage, seen } = triageWithBilling({
      store,
      triage: { permissions: top.permissions },
      billing: { permissions: own.permissions },
    });
    const runtime = new SessionRuntime({
      store,
      agent: triage,
      permissions: { check: (call) => (call.name === 'audit' ? 'allow' : 'allow') },
    });
    const result = await runtime.execute(
      { sessionId: 'sub', userId: 'bob' },
      sendMessage('about order 7'),
    );
    expect(result.output).toContain('billing may not look up');
    expect(seen.contexts.map((c) => c.tool)).toEqual(['audit']);
    // The session agent's policy saw every call; billing's only its own.
    expect(top.asked.map((a) => [a.call.name, a.scope.agentPath])).toEqual([
      ['ask_billing', ['triage']],
      ['lookup', ['triage', 'billing']],
      ['audit', ['triage']],
    ]);
    expect(own.asked.map((a) => a.call.name)).toEqual(['lookup']);
    const child = result.subRuns?.[0];
    expect(child?.agentPath).toEqual(['triage', 'billing']);
    // Inside the sub-agent's check, getRunContext() is the child run's context.
    expect(own.asked[0]!.context).toEqual({ runId: child?.runId, userId: 'bob', sessionId: 'sub' });
    expect(own.asked[0]!.scope).toMatchObject({ runId: child?.runId, userId: 'bob' });
  });

  it('a runtime policy that denies wins over an agent that allows', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store, { permissions: { check: () => 'allow' } });
    const runtime = new SessionRuntime({
      store,
      agent,
      permissions: { check: () => ({ deny: 'read-only tenant' }) },
    });
    const result = await runtime.execute(
      key,
      sendMessage(callTools({ name: 'lookup', arguments: { word: 'x' } })),
    );
    expect(counters.executed).toEqual({});
    expect(result.output).toContain('read-only tenant');
  });

  it('a bad permissions option is a TypeError naming it', () => {
    expect(() => approvalAgent(undefined, { permissions: {} as PermissionPolicy })).toThrow(
      /permissions/,
    );
  });
});
