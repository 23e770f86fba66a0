import type {
  AgentCertificate,
  AgentLoop,
  ApprovalRule,
  ReachableTool,
} from './agent-certificate.js';

/** One difference between two certificates of an agent. */
export interface CertificateChange {
  /**
   * Widening: `new-tool`, `without-approval` (a tool now reachable with no approval),
   * `approval-relaxed`, `gate-removed`, `new-in-doubt`, `new-loop`, `loop-bound-raised` (or
   * removed), `new-opaque`. Narrowing: `tool-removed`, `needs-approval`, `approval-tightened`,
   * `gate-added`, `in-doubt-removed`, `loop-removed`, `loop-bound-lowered`, `opaque-removed`.
   * Neither: `condition-changed` (the source of a `needsApproval` function).
   */
  kind: string;
  agentPath: string[];
  /** The tool, or the toolkit of an opaque source. */
  tool?: string | undefined;
  /** What changed, in one sentence. */
  message: string;
  /** A path of the current chart that shows a widening (the tool's witness). */
  witness?: string[] | undefined;
}

/** What changed from a baseline certificate to the current one. */
export interface CertificateChanges {
  /** What the agent can now reach that it could not: a check against a baseline fails on any. */
  widened: CertificateChange[];
  /** What it can no longer reach, or only through more approvals. */
  narrowed: CertificateChange[];
  /** Changes that neither widen nor narrow as far as a static check can tell. */
  changed: CertificateChange[];
}

const RANK: Record<ApprovalRule, number> = { never: 0, conditional: 1, always: 2 };

const toolKey = (t: { agentPath: string[]; tool: string }): string =>
  JSON.stringify([t.agentPath, t.tool]);
const loopKey = (l: AgentLoop): string => JSON.stringify([l.kind, l.agentPath, l.cycle]);
const at = (path: string[]): string => path.join(' > ');
const loopName = (l: AgentLoop): string =>
  l.kind === 'turns' ? `the turns of ${at(l.agentPath)}` : `the ${l.kind} ${l.cycle.join(' -> ')}`;
const boundText = (l: AgentLoop): string =>
  l.bound ? `${l.bound.option} ${l.bound.value}` : 'no bound';

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  return new Map(items.map((t) => [key(t), t]));
}

/** The changes of one tool present in both certificates. */
function toolChanges(before: ReachableTool, now: ReachableTool, out: CertificateChanges): void {
  const base = { agentPath: now.agentPath, tool: now.tool };
  const name = `${now.tool} at ${at(now.agentPath)}`;
  if (!before.withoutApproval && now.withoutApproval) {
    out.widened.push({
      ...base,
      kind: 'without-approval',
      message: `${name} is now reachable without approval`,
      witness: now.witness,
    });
  } else if (before.withoutApproval && !now.withoutApproval) {
    out.narrowed.push({
      ...base,
      kind: 'needs-approval',
      message: `${name} now always passes an approval`,
    });
  }
  if (RANK[now.approval] < RANK[before.approval]) {
    out.widened.push({
      ...base,
      kind: 'approval-relaxed',
      message: `${name}: approval ${before.approval} -> ${now.approval}`,
      witness: now.witness,
    });
  } else if (RANK[now.approval] > RANK[before.approval]) {
    out.narrowed.push({
      ...base,
      kind: 'approval-tightened',
      message: `${name}: approval ${before.approval} -> ${now.approval}`,
    });
  }
  for (const gate of before.gates.filter((g) => !now.gates.includes(g))) {
    out.widened.push({
      ...base,
      kind: 'gate-removed',
      message: `${name} no longer always passes the approval of ${gate}`,
      witness: now.witness,
    });
  }
  for (const gate of now.gates.filter((g) => !before.gates.includes(g))) {
    out.narrowed.push({
      ...base,
      kind: 'gate-added',
      message: `${name} now always passes the approval of ${gate}`,
    });
  }
  if (
    before.condition !== now.condition &&
    before.condition !== undefined &&
    now.condition !== undefined
  ) {
    out.changed.push({
      ...base,
      kind: 'condition-changed',
      message: `${name}: needsApproval changed from ${before.condition} to ${now.condition}`,
    });
  }
}

/**
 * Compares a certificate with a baseline (both of one agent, as `checkAgent` gives them):
 * `widened` lists what the agent can now reach that it could not (a new tool, a tool now
 * reachable without approval or with fewer approvals, a new in-doubt risk, a new loop or a
 * looser bound, a new opaque toolkit), each with the current witness path when there is one.
 */
export function compareCertificates(
  baseline: AgentCertificate,
  current: AgentCertificate,
): CertificateChanges {
  const out: CertificateChanges = { widened: [], narrowed: [], changed: [] };
  const before = byKey(baseline.tools, toolKey);
  const now = byKey(current.tools, toolKey);
  for (const [key, t] of now) {
    const old = before.get(key);
    if (old) toolChanges(old, t, out);
    else {
      out.widened.push({
        agentPath: t.agentPath,
        tool: t.tool,
        kind: 'new-tool',
        message: `${t.tool} at ${at(t.agentPath)} is newly reachable${t.withoutApproval ? ', without approval' : ''}`,
        witness: t.witness,
      });
    }
  }
  for (const [key, t] of before) {
    if (now.has(key)) continue;
    out.narrowed.push({
      agentPath: t.agentPath,
      tool: t.tool,
      kind: 'tool-removed',
      message: `${t.tool} at ${at(t.agentPath)} is no longer reachable`,
    });
  }
  const riskKey = (r: { agentPath: string[]; tool: string; onInterrupted: string }): string =>
    JSON.stringify([r.agentPath, r.tool, r.onInterrupted]);
  const risksBefore = byKey(baseline.risks.inDoubt, riskKey);
  const risksNow = byKey(current.risks.inDoubt, riskKey);
  for (const [key, r] of risksNow) {
    if (risksBefore.has(key)) continue;
    out.widened.push({
      agentPath: r.agentPath,
      tool: r.tool,
      kind: 'new-in-doubt',
      message: `${r.tool} at ${at(r.agentPath)} is a new in-doubt risk (onInterrupted ${r.onInterrupted}: ${r.meaning})`,
      witness: now.get(toolKey(r))?.witness,
    });
  }
  for (const [key, r] of risksBefore) {
    if (risksNow.has(key)) continue;
    out.narrowed.push({
      agentPath: r.agentPath,
      tool: r.tool,
      kind: 'in-doubt-removed',
      message: `${r.tool} at ${at(r.agentPath)} is no longer an in-doubt risk (onInterrupted ${r.onInterrupted})`,
    });
  }
  loopChanges(baseline.risks.loops, current.risks.loops, out);
  const kitKey = (o: { agentPath: string[]; toolkit: string }): string =>
    JSON.stringify([o.agentPath, o.toolkit]);
  const kitsBefore = byKey(baseline.risks.opaque, kitKey);
  const kitsNow = byKey(current.risks.opaque, kitKey);
  for (const [key, o] of kitsNow) {
    if (kitsBefore.has(key)) continue;
    out.widened.push({
      agentPath: o.agentPath,
      tool: o.toolkit,
      kind: 'new-opaque',
      message: `toolkit ${o.toolkit} at ${at(o.agentPath)} gives tools known only once connected`,
    });
  }
  for (const [key, o] of kitsBefore) {
    if (kitsNow.has(key)) continue;
    out.narrowed.push({
      agentPath: o.agentPath,
      tool: o.toolkit,
      kind: 'opaque-removed',
      message: `toolkit ${o.toolkit} at ${at(o.agentPath)} is gone, or its tools are now given`,
    });
  }
  return out;
}

function loopChanges(
  baseline: readonly AgentLoop[],
  current: readonly AgentLoop[],
  out: CertificateChanges,
): void {
  const before = byKey(baseline, loopKey);
  const now = byKey(current, loopKey);
  const limit = (l: AgentLoop): number => l.bound?.value ?? Infinity;
  for (const [key, l] of now) {
    const old = before.get(key);
    const base = { agentPath: l.agentPath };
    if (!old) {
      out.widened.push({
        ...base,
        kind: 'new-loop',
        message: `new loop: ${loopName(l)} (${boundText(l)})`,
      });
    } else if (limit(l) > limit(old)) {
      out.widened.push({
        ...base,
        kind: 'loop-bound-raised',
        message: `${loopName(l)}: ${boundText(old)} -> ${boundText(l)}`,
      });
    } else if (limit(l) < limit(old)) {
      out.narrowed.push({
        ...base,
        kind: 'loop-bound-lowered',
        message: `${loopName(l)}: ${boundText(old)} -> ${boundText(l)}`,
      });
    }
  }
  for (const [key, l] of before) {
    if (!now.has(key)) {
      out.narrowed.push({
        agentPath: l.agentPath,
        kind: 'loop-removed',
        message: `no more ${loopName(l)}`,
      });
    }
  }
}
