import { afterEach, describe, expect, it } from 'vitest';
import { InvalidSessionRecordError, LevelSessionStore, RunState } from '../../src/index.js';
import { subRunKey } from '../../src/persistence/session-keys.js';
import { checkStoredSession } from '../../src/runs/stored-session-check.js';
import { TempStores } from '../helpers/temp-store.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'order-help', userId: 'alice' };
const opts = { ...key, metadata: { tenant: 'acme' } };

describe('sub-agents', () => {
  it('runs a sub-agent tool as a nested child run: its output is the call result, its usage rolls up, its items stay in its journal', async () => {
    const { store } = await temps.open();
    const { triage, triageModel, billingModel } = triageWithBilling({ store });
    const result = await triage.run('where is order 42?', opts);

    expect(result.output).toBe('triage: billing: order 42 is shipped');
    expect(result.interrupted).toBe(false);
    // billing ran as a child run: two model calls of its own, with its own instructions and
    // only its input as conversation
    expect(billingModel.calls).toHaveLength(2);
    expect(billingModel.calls[0]!.instructions).toBe('You handle billing.');
    expect(billingModel.calls[0]!.items).toEqual([
      { type: 'message', role: 'user', content: 'where is order 42?' },
    ]);
    expect(billingModel.calls[1]!.items.map((i) => i.type)).toEqual([
      'message',
      'tool_call',
      'tool_result',
    ]);
    expect(triageModel.calls).toHaveLength(3);

    const [child] = result.subRuns;
    expect(result.subRuns).toHaveLength(1);
    expect(child).toMatchObject({
      agentPath: ['triage', 'billing'],
      status: 'completed',
      turns: 2,
      output: 'billing: order 42 is shipped',
      usage: { inputTokens: 20, outputTokens: 10 },
    });
    expect(child!.runId).not.toBe(result.id);
    // 3 parent calls + 2 child calls at 10 in / 5 out each
    expect(result.usage).toMatchObject({ inputTokens: 50, outputTokens: 25 });

    // The session history holds the parent's conversation only.
    const history = await store.readHistory(key);
    expect(history.map((i) => i.type)).toEqual([
      'message',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'message',
    ]);
    expect(history[2]).toMatchObject({
      name: 'ask_billing',
      output: 'billing: order 42 is shipped',
    });
    // The child's steps are journaled under its own run id.
    const journal = await store.readRunJournal(key, child!.runId);
    expect(journal.map((e) => [e.step, e.kind])).toEqual([
      [0, 'model'],
      [1, 'tool'],
      [2, 'model'],
    ]);
    const info = await store.load(key);
    expect(info.usage).toMatchObject({ turns: 3, inputTokens: 50, outputTokens: 25 });
  });

  it("gives the child the parent's context with its own run id and the caller's metadata merged in; the parent's is unchanged after", async () => {
    const { store } = await temps.open();
    const { triage, seen } = triageWithBilling({
      store,
      tool: { metadata: { desk: 'billing', tenant: 'acme-billing' } },
    });
    const result = await triage.run('where is order 7?', opts);
    const [lookup, audit] = seen.contexts;
    const child = result.subRuns[0]!;
    expect(lookup!.tool).toBe('lookup');
    expect(lookup!.context.runId).toBe(child.runId);
    expect(lookup!.context.sessionId).toBe(key.sessionId);
    expect(lookup!.context.userId).toBe('alice');
    expect(lookup!.context.metadata).toEqual({ tenant: 'acme-billing', desk: 'billing' });
    expect(audit!.tool).toBe('audit');
    expect(audit!.context.runId).toBe(result.id);
    expect(audit!.context.metadata).toEqual({ tenant: 'acme' });
  });

  it("surfaces a child's approval at the top with its agent path; approving it after a reopen finishes the child without repeating its steps", async () => {
    const temp = await temps.open();
    const first = triageWithBilling({ store: temp.store });
    const paused = await first.triage.run('please refund order 9', opts);
    expect(paused.interrupted).toBe(true);
    expect(paused.interruptionReason).toBe('approval');
    expect(paused.interruptions).toHaveLength(1);
    const [ask] = paused.interruptions;
    expect(ask).toMatchObject({
      toolName: 'refund',
      agent: 'billing',
      agentPath: ['triage', 'billing'],
      arguments: { order: '9' },
    });
    expect(ask!.runId).not.toBe(paused.id);
    expect(first.seen.refunds).toEqual([]);
    const saved = JSON.stringify(paused.state);
    await temp.store.close();

    // A fresh store open and fresh agents: what a new process has.
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = triageWithBilling({ store });
    const done = await second.triage.resume(
      RunState.fromJSON(saved).approve(ask!.callId, { always: true }),
      { store },
    );
    expect(done.output).toBe('triage: billing: order 9 refunded');
    expect(second.seen.refunds).toEqual(['9']);
    // billing's first two model calls (lookup, refund) were journaled: only the last one ran
    expect(second.billingModel.calls).toHaveLength(1);
    expect(second.triageModel.calls).toHaveLength(2);
    expect(done.subRuns.map((r) => r.agentPath)).toEqual([['triage', 'billing']]);
    // `always` belongs to the agent that asked
    const view = await second.triage.runtimeFor(store).getSession(key);
    expect(view.standingDecisions).toEqual({ 'billing/refund': 'approve' });
  });

  it("stores a sub-agent's run under a key of its own: a damaged or missing one is a typed error naming it, and nothing runs", async () => {
    const { store } = await temps.open();
    const { triage, billingModel } = triageWithBilling({ store });
    const paused = await triage.run('please refund order 6', opts);
    const childKey = subRunKey(key, paused.interruptions[0]!.runId!);
    const raw = (await store.backend.get(childKey))!;
    expect(raw).toContain('"awaitingApproval"');
    // what the parent's call gives (agent path, session, input) is not stored again
    expect(raw).not.toMatch(/"agentPath"|"sessionId"|"input":"/);
    const calls = billingModel.calls.length;
    const flipped = raw.replace('"awaitingApproval"', '"awaitingApprovaI"');
    await store.backend.write([{ type: 'put', key: childKey, value: flipped }]);
    const damaged = await triage.resume('order-help', { userId: 'alice' }).catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(InvalidSessionRecordError);
    expect((damaged as InvalidSessionRecordError).key).toBe(childKey);
    await store.backend.write([{ type: 'del', key: childKey }]);
    const missing = await triage.resume('order-help', { userId: 'alice' }).catch((e: unknown) => e);
    expect((missing as InvalidSessionRecordError).key).toBe(childKey);
    expect((missing as Error).message).toMatch(/missing/);
    expect(billingModel.calls).toHaveLength(calls);
  });

  it("calls a sub-agent's model with that agent's own model settings", async () => {
    const { store } = await temps.open();
    const { triage, billingModel } = triageWithBilling({
      store,
      billing: { modelSettings: { temperature: 0.2, seed: 7 } },
    });
    await triage.run('where is order 11?', opts);
    expect(billingModel.calls.map((c) => c.settings)).toEqual([
      { temperature: 0.2, seed: 7 },
      { temperature: 0.2, seed: 7 },
    ]);
  });

  it('stores a snapshot at every state of the child that passes the stored-record checks and survives JSON', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    const runtime = triage.runtimeFor(store);
    const states = new Set<string>();
    runtime.on('SessionSaved', ({ key: k, record }) => {
      expect(() => checkStoredSession(k, record)).not.toThrow();
      expect(JSON.parse(JSON.stringify(record.snapshot))).toEqual(record.snapshot);
      const child = (
        record.snapshot as {
          children: {
            run?: { snapshot: { children: Record<string, { snapshot: { value: unknown } }> } };
          };
        }
      ).children.run?.snapshot.children;
      for (const [id, c] of Object.entries(child ?? {})) {
        if (id.startsWith('agent-')) states.add(JSON.stringify(c.snapshot.value));
      }
    });
    const paused = await triage.run('please refund order 5', opts);
    await triage.resume(paused.state.approve(paused.interruptions[0]!.callId), { store });
    expect([...states].sort()).toEqual(
      ['"awaitingApproval"', '"modelCall"', '"tools"', '{"approvals":"checking"}'].sort(),
    );
  });
});
