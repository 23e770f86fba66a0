import { describe, expect, it } from 'vitest';
import { Agent, type ReplayFile } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { datasetCoverage } from '../../src/evals/coverage.js';
import { coverageMarkdown } from '../../src/evals/coverage-markdown.js';
import { stepTrajectory, trajectoryOf } from '../../src/evals/trajectory.js';
import { bills } from '../../examples/agents/bills.js';
import { support } from '../../examples/agents/support.js';
import { evalRow, recordedReplay } from '../helpers/eval-row-fixtures.js';

/** A run row recorded from `replay`: its agent, its trajectory over the chart. */
const runRow = (id: string, replay: ReplayFile) =>
  evalRow({
    id,
    agent: replay.run.agentName,
    recorded: { status: replay.run.status, trajectory: trajectoryOf(replay) },
  });

describe('datasetCoverage', () => {
  it('support with no rejected refund: the uncovered transitions and approval paths name the reject', async () => {
    const approved = await recordedReplay(support, 'Refund and track A-77', 'approve');
    const rows = [runRow('approved-1', approved), runRow('approved-2', approved)];
    const coverage = datasetCoverage(support, { rows });
    expect(coverage.offChart).toEqual([]);
    expect(coverage.transitions.uncovered).toEqual([
      { agentPath: ['triage', 'billing'], transition: 'billing: reject refund' },
    ]);
    expect(coverage.transitions.covered).toBe(coverage.transitions.reachable - 1);
    expect(coverage.approvals).toEqual({
      reachable: 2,
      neverTaken: [{ agentPath: ['triage', 'billing'], tool: 'refund', decision: 'reject' }],
    });
    expect(coverage.tools).toEqual({ reachable: 4, neverCalled: [] });

    const markdown = coverageMarkdown(coverage);
    expect(markdown).toContain(
      '### Approval paths never taken\n\n- triage > billing: reject refund',
    );
    expect(markdown).toContain('### Transitions never taken\n\n- triage > billing: reject refund');
    expect(markdown).not.toContain('Tools never called');
  });

  it('a rejected run covers the reject; the dataset then covers every transition', async () => {
    const approved = await recordedReplay(support, 'Refund and track A-77', 'approve');
    const rejected = await recordedReplay(support, 'Refund A-77', 'reject');
    const coverage = datasetCoverage(support, [runRow('a', approved), runRow('r', rejected)]);
    expect(coverage.transitions.uncovered).toEqual([]);
    expect(coverage.approvals.neverTaken).toEqual([]);
    expect(coverageMarkdown(coverage)).toContain(
      `- Transitions: ${coverage.transitions.reachable} of ${coverage.transitions.reachable} (100%)`,
    );
  });

  it('bills: a bill under $100 never paid, nor one rejected; an empty dataset covers nothing', async () => {
    const approved = await recordedReplay(bills, 'Pay ACME $120', 'approve');
    const coverage = datasetCoverage(bills, [runRow('paid', approved)]);
    expect(coverage.transitions.uncovered.map((t) => t.transition)).toEqual([
      'bills: pay_bill needs no approval',
      'bills: reject pay_bill',
    ]);
    const empty = datasetCoverage(bills, []);
    expect(empty.transitions.covered).toBe(0);
    expect(empty.tools.neverCalled).toEqual([{ agentPath: ['bills'], tool: 'pay_bill' }]);
    expect(coverageMarkdown(empty)).toContain('### Tools never called\n\n- bills: pay_bill');
  });

  it('a step row covers its model choice; a trajectory the chart cannot follow is named with its row', () => {
    const step = evalRow({
      id: 'step-1',
      kind: 'step',
      agent: 'billing',
      recorded: { trajectory: stepTrajectory('billing', { toolCalls: [{ name: 'refund' }] }) },
    });
    const lost = evalRow({
      id: 'lost',
      agent: 'triage',
      recorded: { trajectory: ['triage: call ask_billing', 'triage: call wire_money'] },
    });
    const coverage = datasetCoverage(support, [step, lost]);
    const uncovered = coverage.transitions.uncovered.map((t) => t.transition);
    expect(uncovered).not.toContain('billing: call refund');
    expect(uncovered).not.toContain('triage: call ask_billing');
    expect(uncovered).toContain('triage: call ask_shipping');
    expect(coverage.offChart).toEqual([
      { rowId: 'lost', transition: 'triage: call wire_money', at: 'triage: execute ask_billing' },
    ]);
    expect(coverageMarkdown(coverage)).toContain(
      '### Rows the chart could not follow\n\n- lost: "triage: call wire_money" at triage: execute ask_billing',
    );
  });

  it('guardrails are not in a trajectory: a walk passes them, a completed run its output ones too', async () => {
    const pass = () => ({ tripwire: false });
    const guarded = new Agent({
      name: 'guarded',
      model: new ScriptedModel([{ text: 'hi' }]),
      inputGuardrails: [{ name: 'in', check: pass }],
      outputGuardrails: [{ name: 'out', check: pass }],
    });
    const replay = await recordedReplay(guarded, 'hello', 'approve');
    const coverage = datasetCoverage(guarded, [runRow('hi', replay)]);
    expect(coverage.offChart).toEqual([]);
    expect(coverage.transitions.uncovered.map((t) => t.transition)).toEqual([
      'guarded: input guardrails trip',
      'guarded: output guardrails trip',
    ]);
  });

  it('bad arguments are TypeErrors', () => {
    expect(() => datasetCoverage({} as never, [])).toThrow(
      'datasetCoverage(): agent must be an Agent',
    );
    expect(() => datasetCoverage(bills, [], { maxDepth: 0 })).toThrow(/maxDepth/);
    expect(() => datasetCoverage(bills, 'rows' as never)).toThrow(/dataset must be/);
  });
});
