import type { RunDetail, RunTreeNode, TimelineStep } from '../api-types.js';
import { h, type Child } from '../dom.js';
import { dur, json, time, tokens, usd } from '../format.js';
import type { Page } from '../page.js';
import { renderTimeTravel } from './time-travel-view.js';
import { renderWaterfall } from './waterfall.js';

/** A run: its timeline (sub-agent runs nested), its persisted snapshot and RunState as JSON. */
export function renderRun(page: Page, r: RunDetail): HTMLDivElement {
  return h(
    'div',
    { id: 'run' },
    h('h2', {}, `Run ${r.runId} · `, h('span', { class: 'badge' }, r.state)),
    renderWaterfall(page, r.runId),
    renderTimeTravel(page, r.runId),
    h('h2', {}, 'Timeline'),
    renderTree(page, r.tree),
    h('details', {}, h('summary', {}, 'Persisted snapshot (JSON)'), json(r.snapshot)),
    h('details', {}, h('summary', {}, 'RunState (JSON)'), json(r.runState)),
  );
}

/**
 * One run of the tree: its agent path, state, decisions and steps, each sub-agent run nested
 * under the model step that called it (the rest after the steps).
 */
function renderTree(page: Page, node: RunTreeNode): HTMLDivElement {
  const byRun = new Map(node.children.map((c) => [c.runId, c]));
  const subRun = (child: RunTreeNode) => h('li', { class: 'subrun' }, renderTree(page, child));
  const held = page.info.recordOnly
    ? 'decided: the run continues when the app resumes it'
    : 'decided: Resume runs it';
  return h(
    'div',
    { class: 'run-node', 'data-run': node.runId },
    h(
      'div',
      {},
      h('b', {}, node.agentPath.join(' › ')),
      ' ',
      h('span', { class: 'badge' }, node.state),
      node.held
        ? [
            ' ',
            h(
              'span',
              { class: 'badge held', title: 'its calls are decided and wait for a resume' },
              held,
            ),
          ]
        : null,
      node.usage ? ` ${tokens(node.usage)} · ${usd(node.usage.costUsd)}` : '',
    ),
    (node.decisions || []).map((d) =>
      h(
        'div',
        { class: 'decision', 'data-decision': d.decision },
        `decision on ${d.name} (${d.callId}): ${d.decision}${d.reason ? ` · ${d.reason}` : ''}`,
      ),
    ),
    h(
      'ul',
      { class: 'timeline' },
      node.timeline.map((step): Child => {
        const nested = (step.model?.toolCalls ?? []).flatMap((c) => {
          const child = c.subRunId === undefined ? undefined : byRun.get(c.subRunId);
          if (!child || c.subRunId === undefined) return [];
          byRun.delete(c.subRunId);
          return [subRun(child)];
        });
        return [renderStep(step), nested];
      }),
      [...byRun.values()].map(subRun),
    ),
  );
}

/** One step: its kind, time, duration and restarts; what it said; its state before → after. */
function renderStep(step: TimelineStep): HTMLLIElement {
  const head: Child = [
    h('b', {}, `#${step.step} ${step.kind}`),
    ' ',
    h('span', { class: 'muted' }, time(step.startedAt || step.endedAt)),
    step.durationMs !== undefined ? ` · ${dur(step.durationMs)}` : '',
    step.restarts
      ? h(
          'span',
          { class: 'badge restart', title: 'in flight at a crash, ran again' },
          ` restarted ${step.restarts}×`,
        )
      : null,
  ];
  let body: HTMLDivElement | null = null;
  if (step.model) {
    const model = step.model;
    body = h(
      'div',
      {},
      `${tokens(model.usage)} · ${usd(model.usage.costUsd)} · latency ${dur(step.durationMs)}`,
      model.text ? h('div', { class: 'message' }, model.text) : null,
      model.toolCalls.map((c) =>
        h(
          'div',
          { class: 'muted' },
          `→ ${c.name}(${c.arguments})${c.subRunId ? ` sub-agent run ${c.subRunId}` : ''}`,
        ),
      ),
    );
  } else if (step.tool) {
    body = h(
      'div',
      {},
      `${step.tool.name}(${step.tool.arguments || ''}) `,
      step.tool.rejected
        ? h('span', { class: 'badge' }, 'rejected')
        : step.tool.isError
          ? h('span', { class: 'badge error' }, 'error')
          : null,
      h('div', { class: 'message' }, step.tool.output),
    );
  } else if (step.approvals) {
    body = h(
      'div',
      {},
      step.approvals.map((a) =>
        h('div', {}, `${a.callId}: ${a.needsApproval ? 'needs approval' : 'no approval needed'}`),
      ),
    );
  } else if (step.guardrails) {
    body = h(
      'div',
      {},
      step.guardrails.map((g) =>
        h('div', {}, `${g.kind} guardrail ${g.name}: ${g.tripwire ? 'tripped' : 'passed'}`),
      ),
    );
  }
  const changes = step.changes.length
    ? h(
        'details',
        {},
        h('summary', { class: 'muted' }, 'state before → after'),
        step.changes.map((c) =>
          h(
            'div',
            { class: 'muted' },
            `${c.field}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`,
          ),
        ),
      )
    : null;
  return h(
    'li',
    {
      class:
        step.kind +
        (step.tool?.rejected ? ' rejected' : step.tool && step.tool.isError ? ' failed' : ''),
      'data-step': step.step,
    },
    head,
    body,
    changes,
  );
}
