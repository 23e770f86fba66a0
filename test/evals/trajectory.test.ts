import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { ChartGraph } from '../../src/agent-check/chart-graph.js';
import { describeEvent } from '../../src/agent-check/chart-state.js';
import { specialisedRunChart } from '../../src/agent-check/specialised-run-chart.js';
import { stepTrajectory, trajectoryOf } from '../../src/evals/trajectory.js';
import { bills } from '../../examples/agents/bills.js';
import { support } from '../../examples/agents/support.js';
import { recordedReplay } from '../helpers/eval-row-fixtures.js';

/** Every transition of the agent's specialised run chart, as the agent check names them. */
function chartTransitions(agent: Agent): Set<string> {
  const graph = new ChartGraph(specialisedRunChart(agent).machine);
  const labels = new Set<string>();
  for (const k of graph.keys()) {
    for (const event of graph.transitionsFrom(k).keys()) {
      labels.add(describeEvent(graph.leafOf(k).state, event));
    }
  }
  return labels;
}

describe('trajectoryOf', () => {
  it('a bill paid after approval: the call, its approval, its return, the answer', async () => {
    const replay = await recordedReplay(bills, 'Pay ACME $120', 'approve');
    expect(trajectoryOf(replay)).toEqual([
      'bills: call pay_bill',
      'bills: pay_bill awaits approval',
      'bills: approve pay_bill',
      'bills: pay_bill returns',
      'bills: answers',
    ]);
  });

  it('a rejected bill: the replay marks the call rejected, the trajectory goes back to the model', async () => {
    const replay = await recordedReplay(bills, 'Pay ACME $120', 'reject');
    expect(replay.runs[0]!.toolResults).toEqual([
      expect.objectContaining({ name: 'pay_bill', isError: true, rejected: true }),
    ]);
    expect(trajectoryOf(replay)).toEqual([
      'bills: call pay_bill',
      'bills: pay_bill awaits approval',
      'bills: reject pay_bill',
      'bills: answers',
    ]);
  });

  it('support: sub-agent runs are walked where their calls start them, in the chart vocabulary', async () => {
    const replay = await recordedReplay(support, 'Refund and track A-77', 'approve');
    const trajectory = trajectoryOf(replay);
    expect(trajectory).toEqual([
      'triage: call ask_billing',
      'triage: ask_billing starts billing',
      'billing: call refund',
      'billing: refund awaits approval',
      'billing: approve refund',
      'billing: refund returns',
      'billing: answers',
      'triage: call ask_shipping',
      'triage: ask_shipping starts shipping',
      'shipping: call track',
      'shipping: track returns',
      'shipping: answers',
      'triage: answers',
    ]);
    const chart = chartTransitions(support);
    expect(trajectory.filter((t) => !chart.has(t))).toEqual([]);
  });

  it('a paused run: the call still waiting for a human comes last, with no decision', async () => {
    const replay = await recordedReplay(support, 'Refund and track A-77', 'leave');
    const trajectory = trajectoryOf(replay);
    expect(trajectory.slice(-4)).toEqual([
      'triage: call ask_billing',
      'triage: ask_billing starts billing',
      'billing: call refund',
      'billing: refund awaits approval',
    ]);
    expect(trajectory).not.toContain('billing: approve refund');
    expect(trajectory).not.toContain('triage: answers');
  });

  it('a rejected refund is a transition of the chart too', async () => {
    const replay = await recordedReplay(support, 'Refund A-77', 'reject');
    const trajectory = trajectoryOf(replay);
    expect(trajectory).toContain('billing: reject refund');
    expect(trajectory).not.toContain('billing: refund returns');
    const chart = chartTransitions(support);
    expect(trajectory.filter((t) => !chart.has(t))).toEqual([]);
  });

  it('a handoff: the transfer returns, the agent it hands to answers', async () => {
    const refunds = new Agent({
      name: 'refunds',
      instructions: 'You refund.',
      model: new ScriptedModel([{ text: 'Refunded.' }]),
    });
    const front = new Agent({
      name: 'front',
      instructions: 'You route.',
      model: new ScriptedModel([{ toolCalls: [{ name: 'transfer_to_refunds', arguments: {} }] }]),
      handoffs: [refunds],
    });
    const trajectory = trajectoryOf(await recordedReplay(front, 'Refund me', 'approve'));
    expect(trajectory).toEqual([
      'front: call transfer_to_refunds',
      'front: transfer_to_refunds returns',
      'refunds: answers',
    ]);
    const chart = chartTransitions(front);
    expect(trajectory.filter((t) => !chart.has(t))).toEqual([]);
  });

  it('the trajectory of one step: the calls asked for, or the answer', () => {
    expect(
      stepTrajectory('triage', { toolCalls: [{ name: 'ask_billing' }, { name: 'x' }] }),
    ).toEqual(['triage: call ask_billing', 'triage: call x']);
    expect(stepTrajectory('billing', { toolCalls: [] })).toEqual(['billing: answers']);
  });
});
