import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { checkAgent } from '../../src/agent-check/check-agent.js';
import { compareCertificates } from '../../src/agent-check/compare-certificates.js';
import { support, supportAgent } from '../../examples/agents/support.js';

const model = new ScriptedModel([{ text: 'ok' }]);
const kinds = (changes: { kind: string; tool?: string | undefined }[]): string[] =>
  changes.map((c) => `${c.kind} ${c.tool ?? ''}`.trim());

describe('compareCertificates', () => {
  it('the same agent: no change', () => {
    expect(compareCertificates(checkAgent(support), checkAgent(support))).toEqual({
      widened: [],
      narrowed: [],
      changed: [],
    });
  });

  it('refund without needsApproval widens: reachable without approval, its gate gone, with a witness', () => {
    const baseline = checkAgent(support);
    const current = checkAgent(supportAgent({ refundNeedsApproval: false }));
    const changes = compareCertificates(baseline, current);
    expect(kinds(changes.widened)).toEqual([
      'without-approval refund',
      'approval-relaxed refund',
      'gate-removed refund',
    ]);
    expect(changes.widened[0]).toMatchObject({
      agentPath: ['triage', 'billing'],
      message: 'refund at triage > billing is now reachable without approval',
      witness: [
        'triage: call ask_billing',
        'triage: ask_billing starts billing',
        'billing: call refund',
        'billing: execute refund',
      ],
    });
    expect(changes.narrowed).toEqual([]);
    // The other way round is a narrowing, and nothing widens.
    const back = compareCertificates(current, baseline);
    expect(back.widened).toEqual([]);
    expect(kinds(back.narrowed)).toEqual([
      'needs-approval refund',
      'approval-tightened refund',
      'gate-added refund',
    ]);
  });

  it('a new tool, a new in-doubt risk, a raised turn limit widen; removing them narrows', () => {
    const lookup = tool({
      name: 'lookup',
      description: 'x',
      parameters: z.object({}),
      idempotent: true,
      execute: () => 1,
    });
    const charge = tool({
      name: 'charge',
      description: 'x',
      parameters: z.object({}),
      execute: () => 1,
    });
    const before = checkAgent(new Agent({ name: 'a', model, tools: [lookup] }));
    const after = checkAgent(
      new Agent({ name: 'a', model, tools: [lookup, charge], maxTurns: 20 }),
    );
    const changes = compareCertificates(before, after);
    expect(kinds(changes.widened)).toEqual([
      'new-tool charge',
      'new-in-doubt charge',
      'loop-bound-raised',
    ]);
    expect(changes.widened[0]!.witness).toEqual(['a: call charge', 'a: execute charge']);
    expect(changes.widened[2]!.message).toBe('the turns of a: maxTurns 10 -> maxTurns 20');
    expect(kinds(compareCertificates(after, before).narrowed)).toEqual([
      'tool-removed charge',
      'in-doubt-removed charge',
      'loop-bound-lowered',
    ]);
  });

  it('a changed needsApproval condition is reported as changed, neither wider nor narrower', () => {
    const pay = (limit: number) =>
      new Agent({
        name: 'a',
        model,
        tools: [
          tool({
            name: 'pay',
            description: 'x',
            parameters: z.object({ usd: z.number() }),
            needsApproval: limit > 100 ? ({ usd }) => usd > 500 : ({ usd }) => usd > 100,
            idempotent: true,
            execute: () => 1,
          }),
        ],
      });
    const changes = compareCertificates(checkAgent(pay(100)), checkAgent(pay(500)));
    expect(changes.widened).toEqual([]);
    expect(kinds(changes.changed)).toEqual(['condition-changed pay']);
  });
});
