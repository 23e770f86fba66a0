import type { RunTreeNode } from './inspector-reads.js';
import type { TimelineStep } from './run-timeline.js';

/** One bar of a run's waterfall: a step, a wait, or a run (its sub-agent runs nested). */
export interface WaterfallBar {
  /** Stable within the run: `<runId>` for a run, `<runId>/<step>` for a step, `…/wait/<callId>`. */
  id: string;
  runId: string;
  /** How deep its run is nested (the run asked for: 0). */
  depth: number;
  kind: 'run' | 'model' | 'tool' | 'approval' | 'guardrail' | 'approval-wait' | 'step' | 'event';
  label: string;
  step?: number | undefined;
  /** Epoch ms. */
  start: number;
  end: number;
  /** Still going (in flight, waiting): `end` is the time of the read. */
  open?: boolean | undefined;
  /** A retried step: the end of its run's step before it (the failed attempt and the wait). */
  retryFrom?: number | undefined;
  restarts?: number | undefined;
  retries?: number | undefined;
  /** Why it failed (a tool error, a tripped guardrail, a failed model call). */
  error?: string | undefined;
  /** A call that was rejected (by a human, a deadline or a permission policy): it did not run. */
  rejected?: boolean | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  costUsd?: number | undefined;
}

export interface Waterfall {
  start: number;
  end: number;
  bars: WaterfallBar[];
}

/**
 * A run tree as a trace viewer draws it: each step a bar on one time axis (model and tool
 * calls, approval checks, guardrails), the time a call waited for a human's decision as its
 * own bar, each sub-agent run nested under the call that started it. A step that was retried
 * or restarted says so; a failed one carries its reason; a model call its tokens and cost.
 * Steps without start times (journaled before they were recorded) are drawn at their end.
 */
export function runWaterfall(tree: RunTreeNode, now: number): Waterfall {
  const bars: WaterfallBar[] = [];
  addRun(bars, tree, 0, now);
  const start = Math.min(...bars.map((b) => b.start));
  const end = Math.max(...bars.map((b) => b.end));
  return bars.length ? { start, end, bars } : { start: now, end: now, bars };
}

function addRun(bars: WaterfallBar[], node: RunTreeNode, depth: number, now: number): void {
  const runBar: WaterfallBar = {
    id: node.runId,
    runId: node.runId,
    depth,
    kind: 'run',
    label: `${node.agentPath.join(' › ')} (${node.state})`,
    start: now,
    end: 0,
    ...(node.usage
      ? {
          inputTokens: node.usage.inputTokens,
          outputTokens: node.usage.outputTokens,
          costUsd: node.usage.costUsd,
        }
      : {}),
  };
  bars.push(runBar);
  const first = bars.length;
  const children = new Map(node.children.map((c) => [c.runId, c]));
  const subRunOf = new Map<string, string>(); // callId -> sub-run id
  const waitsFrom = new Map<string, number>(); // callId -> when its approval check ended
  // In the order they ran: an approval check is numbered after the calls it checks.
  const steps = [...node.timeline].sort((a, b) => startOf(a) - startOf(b) || a.step - b.step);
  let previousEnd: number | undefined;
  /** The sub-agent run of call `callId` nested at the end of `bars`; its run bar, if any. */
  const nested = (callId: string): WaterfallBar | undefined => {
    const childId = subRunOf.get(callId);
    const child = childId === undefined ? undefined : children.get(childId);
    if (!child) return undefined;
    children.delete(child.runId);
    const at = bars.length;
    addRun(bars, child, depth + 1, now);
    return bars[at];
  };
  for (const step of steps) {
    if (step.tool) {
      const from = waitsFrom.get(step.tool.callId);
      if (from !== undefined) {
        waitsFrom.delete(step.tool.callId);
        bars.push(
          waitBar(node.runId, depth, step.tool.callId, step.tool.name, from, startOf(step)),
        );
      }
    }
    const bar = stepBar(node.runId, depth, step, previousEnd);
    bars.push(bar);
    previousEnd = step.endedAt;
    // A sub-agent's call spans its child run, which is nested under it.
    const child = step.tool ? nested(step.tool.callId) : undefined;
    if (child) {
      bar.start = Math.min(bar.start, child.start);
      bar.end = Math.max(bar.end, child.end);
      if (child.open) bar.open = true;
    }
    for (const c of step.model?.toolCalls ?? []) if (c.subRunId) subRunOf.set(c.callId, c.subRunId);
    for (const a of step.approvals ?? [])
      if (a.needsApproval) waitsFrom.set(a.callId, step.endedAt);
  }
  const names = new Map(
    steps.flatMap((s) => (s.model?.toolCalls ?? []).map((c) => [c.callId, c.name])),
  );
  for (const [callId, from] of waitsFrom) {
    bars.push({ ...waitBar(node.runId, depth, callId, names.get(callId), from, now), open: true });
  }
  // A sub-agent's call not journaled yet (its child still runs): its bar, the child under it.
  for (const [callId, childId] of subRunOf) {
    if (!children.has(childId)) continue;
    const call: WaterfallBar = {
      id: `${node.runId}/call/${callId}`,
      runId: node.runId,
      depth,
      kind: 'tool',
      label: `tool ${names.get(callId) ?? callId}`,
      start: now,
      end: now,
      open: true,
    };
    bars.push(call);
    const child = nested(callId)!;
    call.start = child.start;
    call.end = Math.max(child.end, call.start);
  }
  const journaled = new Set(steps.map((s) => s.step));
  for (const [key, started] of Object.entries(node.started ?? {})) {
    const step = Number(key);
    if (journaled.has(step)) continue;
    const failed = node.error !== undefined;
    bars.push({
      id: `${node.runId}/${step}`,
      runId: node.runId,
      depth,
      kind: 'step',
      label: failed ? `#${step} failed` : `#${step} in flight`,
      step,
      start: started.at,
      // A failed call's end is not recorded: a mark at its start. One in flight runs to now.
      ...(failed ? { end: started.at } : { end: Math.max(started.at, now), open: true }),
      ...(previousEnd !== undefined && started.retries ? { retryFrom: previousEnd } : {}),
      ...(started.restarts ? { restarts: started.restarts } : {}),
      ...(started.retries ? { retries: started.retries } : {}),
      ...(failed ? { error: node.error!.message } : {}),
    });
  }
  for (const child of children.values()) addRun(bars, child, depth + 1, now);
  const own = bars.slice(first);
  runBar.start = Math.min(now, ...own.map((b) => b.retryFrom ?? b.start));
  runBar.end = Math.max(runBar.start, ...own.map((b) => b.end));
  if (own.some((b) => b.open)) runBar.open = true;
  if (node.error && !own.some((b) => b.error === node.error!.message))
    runBar.error = node.error.message;
}

const startOf = (step: TimelineStep) => step.startedAt ?? step.endedAt;

function waitBar(
  runId: string,
  depth: number,
  callId: string,
  name: string | undefined,
  from: number,
  to: number,
): WaterfallBar {
  return {
    id: `${runId}/wait/${callId}`,
    runId,
    depth,
    kind: 'approval-wait',
    label: `waits for approval: ${name ?? callId}`,
    start: from,
    end: Math.max(from, to),
  };
}

function stepBar(
  runId: string,
  depth: number,
  step: TimelineStep,
  previousEnd: number | undefined,
): WaterfallBar {
  const bar: WaterfallBar = {
    id: `${runId}/${step.step}`,
    runId,
    depth,
    kind: step.kind,
    label: `#${step.step} ${stepLabel(step)}`,
    step: step.step,
    start: startOf(step),
    end: step.endedAt,
    ...(step.restarts ? { restarts: step.restarts } : {}),
    ...(step.retries ? { retries: step.retries } : {}),
    ...(step.retries && previousEnd !== undefined ? { retryFrom: previousEnd } : {}),
  };
  if (step.model) {
    bar.inputTokens = step.model.usage.inputTokens;
    bar.outputTokens = step.model.usage.outputTokens;
    bar.costUsd = step.model.usage.costUsd;
  }
  if (step.tool?.rejected) {
    bar.rejected = true;
    bar.label += ' (rejected)';
  } else if (step.tool?.isError) bar.error = step.tool.output;
  const tripped = step.guardrails?.find((g) => g.tripwire);
  if (tripped) bar.error = `guardrail ${tripped.name} tripped`;
  return bar;
}

/** A step in a few words: `model → <calls>`, `model answer`, `tool <name>`, `approval check`, ... */
export function stepLabel(step: TimelineStep): string {
  if (step.model) {
    const calls = step.model.toolCalls.map((c) => c.name);
    return calls.length ? `model → ${calls.join(', ')}` : 'model answer';
  }
  if (step.tool) return `tool ${step.tool.name ?? step.tool.callId}`;
  if (step.approvals) return 'approval check';
  if (step.guardrails) return `guardrails ${step.guardrails.map((g) => g.name).join(', ')}`;
  return step.kind;
}
