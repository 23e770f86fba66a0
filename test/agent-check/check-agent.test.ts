import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, tool, toolkit, type AnyTool, type PermissionPolicy } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { checkAgent } from '../../src/agent-check/check-agent.js';
import type { ReachableTool } from '../../src/agent-check/agent-certificate.js';
import { bills } from '../../examples/agents/bills.js';
import { support } from '../../examples/agents/support.js';

const model = new ScriptedModel([{ text: 'ok' }]);

/** A tool with no effect worth noting, unless options say otherwise. */
const plain = (name: string, options: Partial<Parameters<typeof tool>[0]> = {}): AnyTool =>
  tool({ name, description: name, parameters: z.object({}), execute: () => name, ...options });

/** The fields of a reachable tool a test reads, by `path: tool`. */
function summary(tools: readonly ReachableTool[]): Record<string, unknown> {
  return Object.fromEntries(
    tools.map((t) => [
      `${t.agentPath.join(' > ')}: ${t.tool}`,
      { kind: t.kind, approval: t.approval, withoutApproval: t.withoutApproval, gates: t.gates },
    ]),
  );
}

describe('checkAgent', () => {
  it('the bills example: pay_bill is conditional (over $100), reachable without approval, in doubt', () => {
    const cert = checkAgent(bills);
    expect(cert.agent).toBe('bills');
    expect(cert.tools).toHaveLength(1);
    const payBill = cert.tools[0]!;
    expect(payBill).toMatchObject({
      agentPath: ['bills'],
      tool: 'pay_bill',
      kind: 'tool',
      approval: 'conditional',
      askedBy: ['needsApproval'],
      gates: [],
      withoutApproval: true,
      idempotent: false,
      onInterrupted: 'fail',
      reconcile: false,
    });
    expect(payBill.condition?.replace(/\s/g, '')).toContain('amountUsd>100');
    expect(payBill.witness).toEqual([
      'bills: call pay_bill',
      'bills: pay_bill needs no approval',
      'bills: execute pay_bill',
    ]);
    expect(cert.risks.inDoubt).toEqual([
      expect.objectContaining({ agentPath: ['bills'], tool: 'pay_bill', onInterrupted: 'fail' }),
    ]);
  });

  it('the support example: refund gated by its own approval under triage > billing, track free under shipping', () => {
    const cert = checkAgent(support);
    expect(summary(cert.tools)).toEqual({
      'triage: ask_billing': {
        kind: 'sub-agent',
        approval: 'never',
        withoutApproval: true,
        gates: [],
      },
      'triage: ask_shipping': {
        kind: 'sub-agent',
        approval: 'never',
        withoutApproval: true,
        gates: [],
      },
      'triage > billing: refund': {
        kind: 'tool',
        approval: 'always',
        withoutApproval: false,
        gates: ['triage > billing: refund'],
      },
      'triage > shipping: track': {
        kind: 'tool',
        approval: 'never',
        withoutApproval: true,
        gates: [],
      },
    });
    const refund = cert.tools.find((t) => t.tool === 'refund')!;
    expect(refund.witness).toEqual([
      'triage: call ask_billing',
      'triage: ask_billing starts billing',
      'billing: call refund',
      'billing: refund awaits approval',
      'billing: approve refund',
      'billing: execute refund',
    ]);
    expect(cert.tools.find((t) => t.tool === 'track')!.witness).toEqual([
      'triage: call ask_shipping',
      'triage: ask_shipping starts shipping',
      'shipping: call track',
      'shipping: execute track',
    ]);
    expect(cert.agents.map((a) => [a.agentPath.join(' > '), a.via])).toEqual([
      ['triage', 'root'],
      ['triage > billing', 'sub-agent'],
      ['triage > shipping', 'sub-agent'],
    ]);
    expect(cert.risks.loops.map((l) => [l.kind, l.agentPath.join(' > '), l.bound])).toEqual([
      ['turns', 'triage', { option: 'maxTurns', value: 10, isDefault: true }],
      ['turns', 'triage > billing', { option: 'maxTurns', value: 10, isDefault: true }],
      ['turns', 'triage > shipping', { option: 'maxTurns', value: 10, isDefault: true }],
    ]);
  });

  it('a sub-agent tool that needs approval gates every tool below it; a conditional one does not', () => {
    const leaf = new Agent({ name: 'leaf', model, tools: [plain('wipe')] });
    const gated = new Agent({
      name: 'top',
      model,
      tools: [leaf.asTool({ name: 'ask_leaf', description: 'x', needsApproval: true })],
    });
    const wipe = checkAgent(gated).tools.find((t) => t.tool === 'wipe')!;
    expect(wipe).toMatchObject({
      approval: 'never',
      withoutApproval: false,
      gates: ['top: ask_leaf'],
    });
    expect(wipe.witness).toEqual([
      'top: call ask_leaf',
      'top: ask_leaf awaits approval',
      'top: approve ask_leaf',
      'top: ask_leaf starts leaf',
      'leaf: call wipe',
      'leaf: execute wipe',
    ]);
    const conditional = new Agent({
      name: 'top',
      model,
      tools: [
        leaf.asTool({
          name: 'ask_leaf',
          description: 'x',
          needsApproval: (args: { input: string }) => args.input.includes('wipe'),
        }),
      ],
    });
    const free = checkAgent(conditional).tools.find((t) => t.tool === 'wipe')!;
    expect(free).toMatchObject({ withoutApproval: true, gates: [] });
    expect(free.witness).toContain('top: ask_leaf needs no approval');
  });

  it('two approvals in a row are both gates; an approval avoidable by another route is not', () => {
    const leaf = new Agent({
      name: 'leaf',
      model,
      tools: [plain('wipe', { needsApproval: true })],
    });
    const twice = new Agent({
      name: 'top',
      model,
      tools: [leaf.asTool({ name: 'ask_leaf', description: 'x', needsApproval: true })],
    });
    expect(checkAgent(twice).tools.find((t) => t.tool === 'wipe')!.gates).toEqual([
      'top: ask_leaf',
      'top > leaf: wipe',
    ]);
    const other = new Agent({
      name: 'top',
      model,
      tools: [
        leaf.asTool({ name: 'ask_leaf', description: 'x', needsApproval: true }),
        leaf.asTool({ name: 'ask_leaf_too', description: 'y' }),
      ],
    });
    // The same agent under two tools is one agent path: the second tool avoids the first's gate.
    const wipe = checkAgent(other).tools.find((t) => t.tool === 'wipe')!;
    expect(wipe.gates).toEqual(['top > leaf: wipe']);
    expect(wipe.withoutApproval).toBe(false);
  });

  it('handoffs lead to the other agent’s tools, and a handoff cycle is a loop bounded by the run’s maxTurns', () => {
    const handoffs: Agent[] = [];
    const refunds = new Agent({
      name: 'refunds',
      model,
      tools: [plain('refund', { needsApproval: true })],
      handoffs,
    });
    const triage = new Agent({ name: 'triage', model, maxTurns: 6, handoffs: [refunds] });
    handoffs.push(triage);
    const cert = checkAgent(triage);
    expect(summary(cert.tools)).toEqual({
      'refunds: refund': {
        kind: 'tool',
        approval: 'always',
        withoutApproval: false,
        gates: ['refunds: refund'],
      },
      'refunds: transfer_to_triage': {
        kind: 'handoff',
        approval: 'never',
        withoutApproval: true,
        gates: [],
      },
      'triage: transfer_to_refunds': {
        kind: 'handoff',
        approval: 'never',
        withoutApproval: true,
        gates: [],
      },
    });
    expect(cert.tools.find((t) => t.tool === 'refund')!.witness).toEqual([
      'triage: call transfer_to_refunds',
      'triage: transfer_to_refunds returns',
      'refunds: call refund',
      'refunds: refund awaits approval',
      'refunds: approve refund',
      'refunds: execute refund',
    ]);
    expect(cert.risks.loops).toContainEqual({
      kind: 'handoff-cycle',
      agentPath: ['triage'],
      cycle: ['triage', 'refunds', 'triage'],
      bound: { option: 'maxTurns', value: 6, isDefault: false },
    });
    expect(cert.agents.map((a) => [a.agentPath.join(' > '), a.via])).toEqual([
      ['refunds', 'handoff'],
      ['triage', 'root'],
    ]);
  });

  it('sub-agent recursion is followed down to maxSubAgentDepth and named as a loop it bounds', () => {
    const tools: AnyTool[] = [plain('dig')];
    const digger = new Agent({ name: 'digger', model, tools, maxSubAgentDepth: 2 });
    tools.push(digger.asTool({ name: 'ask_digger', description: 'x' }));
    const cert = checkAgent(digger);
    expect(cert.maxSubAgentDepth).toBe(2);
    expect(cert.tools.filter((t) => t.tool === 'dig').map((t) => t.agentPath.length)).toEqual([
      1, 2, 3,
    ]);
    expect(cert.risks.loops).toContainEqual({
      kind: 'sub-agent-recursion',
      agentPath: ['digger'],
      cycle: ['digger', 'digger'],
      bound: { option: 'maxSubAgentDepth', value: 2, isDefault: false },
    });
    expect(checkAgent(digger, { maxDepth: 1 }).tools.filter((t) => t.tool === 'dig')).toHaveLength(
      2,
    );
  });

  it('a permission policy makes every call of the agents it covers conditional', () => {
    const permissions: PermissionPolicy = { check: () => 'allow' };
    const child = new Agent({ name: 'child', model, tools: [plain('b')] });
    const agent = new Agent({
      name: 'root',
      model,
      permissions,
      tools: [plain('a'), child.asTool({ name: 'ask_child', description: 'x' })],
    });
    const cert = checkAgent(agent);
    const b = cert.tools.find((t) => t.tool === 'b')!;
    expect(b).toMatchObject({
      approval: 'conditional',
      askedBy: ['permissions of root'],
      withoutApproval: true,
    });
    expect(b.witness).toContain('child: b needs no approval');
    expect(cert.agents.find((a) => a.agentPath.length === 1)!.permissions).toBe(true);
  });

  it('in-doubt risks: a tool neither idempotent nor reconcilable, with what its onInterrupted means', () => {
    const agent = new Agent({
      name: 'a',
      model,
      tools: [
        plain('charge', { onInterrupted: 'ask' }),
        plain('lookup', { idempotent: true }),
        plain('ship', { reconcile: () => 'unknown' as const }),
        plain('email', { onInterrupted: 'retry' }),
      ],
    });
    const cert = checkAgent(agent);
    expect(cert.risks.inDoubt.map((r) => [r.tool, r.onInterrupted])).toEqual([
      ['charge', 'ask'],
      ['email', 'retry'],
    ]);
    expect(cert.risks.inDoubt[0]!.meaning).toContain('operator');
    expect(cert.risks.inDoubt[1]!.meaning).toContain('twice');
    expect(cert.tools.find((t) => t.tool === 'lookup')).toMatchObject({
      idempotent: true,
      onInterrupted: 'retry',
    });
  });

  it('a toolkit is opaque unless its tools are given resolved', () => {
    const crm = toolkit({ name: 'crm', create: () => ({ tools: [plain('find_customer')] }) });
    const agent = new Agent({ name: 'a', model, toolkits: [crm] });
    const opaque = checkAgent(agent);
    expect(opaque.risks.opaque).toEqual([{ agentPath: ['a'], toolkit: 'crm' }]);
    expect(opaque.tools).toEqual([]);
    const resolved = checkAgent(agent, {
      toolkitTools: { crm: [plain('find_customer', { needsApproval: true })] },
    });
    expect(resolved.risks.opaque).toEqual([]);
    expect(() => checkAgent(agent, { toolkitTools: { crn: [] } })).toThrow(
      'checkAgent(): option "toolkitTools" names toolkit "crn", which no agent reachable from "a" has (toolkits: crm)',
    );
    expect(summary(resolved.tools)).toEqual({
      'a: find_customer': {
        kind: 'tool',
        approval: 'always',
        withoutApproval: false,
        gates: ['a: find_customer'],
      },
    });
  });

  it('input and output guardrails are states of the chart and listed per agent', () => {
    const agent = new Agent({
      name: 'a',
      model,
      tools: [plain('t')],
      inputGuardrails: [{ name: 'no_pii', check: () => ({ tripwire: false }) }],
      outputGuardrails: [{ name: 'tone', check: () => ({ tripwire: false }) }],
    });
    const cert = checkAgent(agent);
    expect(cert.agents[0]).toMatchObject({
      inputGuardrails: ['no_pii'],
      outputGuardrails: ['tone'],
    });
    expect(cert.tools[0]!.witness).toEqual([
      'a: input guardrails pass',
      'a: call t',
      'a: execute t',
    ]);
  });

  it('is plain JSON in a stable order: two checks of one agent give the same text', () => {
    const one = JSON.stringify(checkAgent(support));
    expect(JSON.stringify(checkAgent(support))).toBe(one);
    expect(JSON.parse(one)).toEqual(checkAgent(support));
  });

  it('bad input is a TypeError naming what is wrong, two agents of one name too', () => {
    expect(() => checkAgent({} as never)).toThrow(/checkAgent\(\): agent must be an Agent/);
    expect(() => checkAgent(bills, { maxDepth: 0 })).toThrow(
      /option "maxDepth" must be a positive integer/,
    );
    expect(() => checkAgent(bills, { depth: 2 } as never)).toThrow(/unknown option "depth"/);
    expect(() => checkAgent(bills, { toolkitTools: { crm: 'x' } } as never)).toThrow(
      /toolkitTools/,
    );
    const one = new Agent({ name: 'same', model, tools: [plain('x')] });
    const two = new Agent({ name: 'same', model, tools: [plain('y')] });
    const root = new Agent({
      name: 'root',
      model,
      tools: [
        one.asTool({ name: 'ask_one', description: 'x' }),
        two.asTool({ name: 'ask_two', description: 'y' }),
      ],
    });
    expect(() => checkAgent(root)).toThrow(/two different agents are named "same"/);
  });
});
