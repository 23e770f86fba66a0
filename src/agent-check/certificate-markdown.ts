import type { AgentCertificate, AgentLoop, ReachableTool } from './agent-certificate.js';
import type { CertificateChange, CertificateChanges } from './compare-certificates.js';

const at = (path: readonly string[]): string => path.join(' > ');
const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
const witness = (steps: readonly string[]): string => steps.join(' -> ');

/** A tool's line: `- **refund** at triage > billing: approval always (needsApproval), ...`. */
function toolLine(t: ReachableTool): string {
  const asked = t.askedBy.length
    ? ` (${t.askedBy.map((a) => (a === 'needsApproval' && t.condition ? `needsApproval ${code(t.condition)}` : a)).join(', ')})`
    : '';
  const reach = t.withoutApproval
    ? 'reachable without approval'
    : `gated by ${t.gates.length ? t.gates.join(', ') : 'an approval on every path'}`;
  return `- **${t.tool}** (${t.kind}) at ${at(t.agentPath)}: approval ${t.approval}${asked}, ${reach}. Witness: ${witness(t.witness)}`;
}

function loopLine(l: AgentLoop): string {
  const what =
    l.kind === 'turns'
      ? `the turns of ${at(l.agentPath)}`
      : `${l.kind === 'handoff-cycle' ? 'handoff cycle' : 'sub-agent recursion'} ${l.cycle.join(' -> ')} (from ${at(l.agentPath)})`;
  const bound = l.bound
    ? `bounded by ${l.bound.option} ${l.bound.value}${l.bound.isDefault ? ' (the default)' : ''}`
    : '**unbounded**';
  return `- ${what}: ${bound}`;
}

/**
 * The certificate as markdown: the tools with their approval and witness path, the in-doubt
 * risks, the loops with their bounds, the opaque toolkits.
 */
export function certificateMarkdown(cert: AgentCertificate): string {
  const free = cert.tools.filter((t) => t.withoutApproval).length;
  const lines = [
    `# Agent certificate: ${cert.agent}`,
    '',
    `${cert.tools.length} tool(s) reachable, ${free} of them without approval; sub-agent runs followed ${cert.maxSubAgentDepth} deep.`,
    '',
    '## Tools',
    '',
    ...(cert.tools.length ? cert.tools.map(toolLine) : ['None.']),
    '',
    '## In-doubt risks',
    '',
    ...(cert.risks.inDoubt.length
      ? cert.risks.inDoubt.map(
          (r) =>
            `- **${r.tool}** at ${at(r.agentPath)}: neither idempotent nor reconcilable; onInterrupted ${code(r.onInterrupted)}: ${r.meaning}`,
        )
      : ['None.']),
    '',
    '## Loops',
    '',
    ...(cert.risks.loops.length ? cert.risks.loops.map(loopLine) : ['None.']),
    '',
    '## Opaque tool sources',
    '',
    ...(cert.risks.opaque.length
      ? cert.risks.opaque.map(
          (o) =>
            `- toolkit **${o.toolkit}** at ${at(o.agentPath)}: its tools are known only once connected`,
        )
      : ['None.']),
    '',
  ];
  return lines.join('\n');
}

function changeLine(c: CertificateChange): string {
  return `- ${c.message}${c.witness ? `. Witness: ${witness(c.witness)}` : ''}`;
}

/** A comparison with a baseline as markdown: widened (what fails a check), narrowed, changed. */
export function changesMarkdown(changes: CertificateChanges): string {
  const section = (title: string, items: CertificateChange[]): string[] =>
    items.length ? [`## ${title}`, '', ...items.map(changeLine), ''] : [];
  const none =
    changes.widened.length + changes.narrowed.length + changes.changed.length === 0
      ? ['No change from the baseline.', '']
      : [];
  return [
    ...section('Widened', changes.widened),
    ...section('Narrowed', changes.narrowed),
    ...section('Changed', changes.changed),
    ...none,
  ].join('\n');
}
