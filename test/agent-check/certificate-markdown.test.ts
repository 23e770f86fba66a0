import { describe, expect, it } from 'vitest';
import { checkAgent } from '../../src/agent-check/check-agent.js';
import {
  certificateMarkdown,
  changesMarkdown,
} from '../../src/agent-check/certificate-markdown.js';
import { compareCertificates } from '../../src/agent-check/compare-certificates.js';
import { bills } from '../../examples/agents/bills.js';
import { support, supportAgent } from '../../examples/agents/support.js';

describe('certificateMarkdown', () => {
  it('one line per tool with its approval path and witness; risks and loops', () => {
    const text = certificateMarkdown(checkAgent(support));
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Agent certificate: triage');
    expect(lines).toContain(
      '- **refund** (tool) at triage > billing: approval always (needsApproval), gated by triage > billing: refund. Witness: triage: call ask_billing -> triage: ask_billing starts billing -> billing: call refund -> billing: refund awaits approval -> billing: approve refund -> billing: execute refund',
    );
    expect(lines).toContain(
      '- **track** (tool) at triage > shipping: approval never, reachable without approval. Witness: triage: call ask_shipping -> triage: ask_shipping starts shipping -> shipping: call track -> shipping: execute track',
    );
    expect(lines.filter((l) => l.startsWith('- **ask_'))).toHaveLength(2);
    expect(lines).toContain(
      '- the turns of triage > billing: bounded by maxTurns 10 (the default)',
    );
    expect(text).toContain('## In-doubt risks');
    expect(text).toContain('## Opaque tool sources\n\nNone.');
  });

  it('a conditional approval shows its condition', () => {
    const line = certificateMarkdown(checkAgent(bills))
      .split('\n')
      .find((l) => l.startsWith('- **pay_bill**'))!;
    expect(line).toMatch(
      /approval conditional \(needsApproval `.*amountUsd ?> ?100`\), reachable without approval/,
    );
    expect(line).toMatch(
      /Witness: bills: call pay_bill -> bills: pay_bill needs no approval -> bills: execute pay_bill$/,
    );
  });

  it('changes: widened with their witness, or no change', () => {
    const base = checkAgent(support);
    expect(changesMarkdown(compareCertificates(base, base))).toBe('No change from the baseline.\n');
    const text = changesMarkdown(
      compareCertificates(base, checkAgent(supportAgent({ refundNeedsApproval: false }))),
    );
    expect(text).toContain(
      '## Widened\n\n- refund at triage > billing is now reachable without approval. Witness: triage: call ask_billing -> ',
    );
  });
});
