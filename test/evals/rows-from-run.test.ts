import { describe, expect, it } from 'vitest';
import { RunNotFoundError } from '../../src/errors/replay-errors.js';
import { rowsFromRun } from '../../src/evals/rows-from-run.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { recordedBills, recordedSummarizer, recordedSupport } from '../helpers/eval-agents.js';

const user = { userId: 'alice' };

async function billsRun(decision: 'approve' | 'reject') {
  const store = new MemorySessionStore();
  const { agent, model } = recordedBills();
  const first = await agent.run('Pay my power bill', { sessionId: 's1', ...user, store });
  const callId = first.interruptions[0]!.callId;
  if (decision === 'approve') await agent.approve('s1', callId, { ...user, store });
  else await agent.reject('s1', callId, { ...user, store, message: 'Not this month' });
  return { store, agent, model };
}

describe('rowsFromRun: a whole run', () => {
  it('takes the input, the decisions, the replay and what the run did, pinned to the fingerprint', async () => {
    const { store, agent } = await billsRun('approve');
    const clock = new FakeClock(1_000);
    const [row, ...more] = await rowsFromRun(
      { store, agent },
      { sessionId: 's1', ...user },
      {
        tags: ['approved'],
        clock,
      },
    );
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      format: 'agentstate-eval-row',
      kind: 'run',
      agent: 'bills',
      tags: ['approved'],
      input: [{ type: 'message', role: 'user', content: 'Pay my power bill' }],
      decisions: [{ tool: 'pay_bill', decision: 'approve' }],
      source: { sessionId: 's1', userId: 'alice', capturedAt: 1_000 },
      recorded: {
        status: 'completed',
        toolCalls: [{ name: 'pay_bill', arguments: '{"payee":"ACME Power","amountUsd":120}' }],
        turns: 2,
      },
    });
    expect(row!.recorded.output).toMatch(/^Paid \$120\.00 to ACME Power/);
    expect(row!.id).toBe(`s1-${row!.source!.runId}`);
    expect(row!.replay?.run.runId).toBe(row!.source!.runId);
    expect(Object.keys(row!.fingerprint)).toEqual(
      expect.arrayContaining(['instructions', 'model', 'tool:pay_bill.parameters']),
    );
  });

  it('a rejected approval is a reject decision with the message the model read', async () => {
    const { store, agent } = await billsRun('reject');
    const [row] = await rowsFromRun({ store, agent }, { sessionId: 's1', ...user });
    expect(row!.decisions).toHaveLength(1);
    expect(row!.decisions![0]).toMatchObject({ tool: 'pay_bill', decision: 'reject' });
    expect(row!.decisions![0]!.message).toContain('Not this month');
    expect(row!.recorded.output).toMatch(/did not pay/);
  });

  it('a run the session no longer keeps is RunNotFoundError; bad options are TypeErrors', async () => {
    const { store, agent } = await billsRun('approve');
    const source = { store, agent };
    await expect(
      rowsFromRun(source, { sessionId: 's1', ...user }, { runId: '01OLDRUN' }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(
      rowsFromRun(source, { sessionId: 's1', ...user }, { steps: 'all' as never }),
    ).rejects.toThrow(/options\.steps/);
    await expect(
      rowsFromRun(source, { sessionId: 's1', ...user }, { bogus: 1 } as never),
    ).rejects.toThrow(TypeError);
  });
});

describe('rowsFromRun: model steps carry the exact request the model received', () => {
  it('bills: each step row request is byte-equal to what the model was sent', async () => {
    const { store, agent, model } = await billsRun('approve');
    const rows = await rowsFromRun(
      { store, agent },
      { sessionId: 's1', ...user },
      { steps: 'model-steps' },
    );
    expect(rows.map((r) => r.kind)).toEqual(['step', 'step']);
    expect(rows.map((r) => JSON.stringify(r.request))).toEqual(model.sent);
    expect(rows[0]!.after).toEqual([expect.objectContaining({ name: 'pay_bill', isError: false })]);
    expect(rows[0]!.recorded).toMatchObject({
      turns: 1,
      toolCalls: [{ name: 'pay_bill' }],
    });
    const [one] = await rowsFromRun(
      { store, agent },
      { sessionId: 's1', ...user },
      { steps: [rows[1]!.source!.step!] },
    );
    expect(JSON.stringify(one!.request)).toBe(model.sent[1]);
    await expect(
      rowsFromRun({ store, agent }, { sessionId: 's1', ...user }, { steps: [999] }),
    ).rejects.toMatchObject({ code: 'INVALID_DATASET' });
  });

  it('a sub-agent run: the rows of its steps hold its own conversation, byte-equal', async () => {
    const store = new MemorySessionStore();
    const { agent, models } = recordedSupport();
    const first = await agent.run('Refund A-77 please', { sessionId: 's2', store });
    await agent.approve('s2', first.interruptions[0]!.callId, { store });
    const rows = await rowsFromRun({ store, agent }, { sessionId: 's2' }, { steps: 'model-steps' });
    const byAgent = (name: string) =>
      rows.filter((r) => r.agent === name).map((r) => JSON.stringify(r.request));
    expect(byAgent('triage')).toEqual(models.triage.sent);
    expect(byAgent('billing')).toEqual(models.billing.sent);
    expect(models.billing.sent).toHaveLength(2);
    const [run] = await rowsFromRun({ store, agent }, { sessionId: 's2' });
    expect(run!.decisions).toEqual([{ tool: 'refund', decision: 'approve' }]);
    expect(run!.recorded.toolCalls.map((c) => c.name)).toEqual(['ask_billing', 'refund']);
    expect(run!.recorded.trajectory).toEqual(
      expect.arrayContaining(['triage: call ask_billing', 'billing: call refund']),
    );
    expect(rows[0]!.recorded.trajectory).toEqual(['triage: call ask_billing']);
  });

  it('a history window with a summary and a pinned message: byte-equal', async () => {
    const store = new MemorySessionStore();
    const { agent, model } = recordedSummarizer();
    for (const text of ['the garden', 'the roof', 'paint', 'the fence']) {
      await agent.run(text, { sessionId: 's3', store });
    }
    const rows = await rowsFromRun({ store, agent }, { sessionId: 's3' }, { steps: 'model-steps' });
    expect(rows).toHaveLength(1);
    const sent = JSON.stringify(rows[0]!.request);
    expect(sent).toBe(model.sent.at(-1));
    expect(sent).toContain('summary of');
    expect(model.sent.filter((s) => s.includes('summary of')).length).toBeGreaterThan(1);
  });
});
