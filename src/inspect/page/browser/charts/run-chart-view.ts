import type { RunTreeNode, TimelineStep } from '../api-types.js';
import { CHART_LAYOUTS } from './chart-layouts.js';
import { append, clear, h, type Child } from '../dom.js';
import { dur } from '../format.js';
import { drawChart, visitText } from './state-chart.js';
import { activePaths, runPath, type RunPath } from './state-chart-path.js';
import type { ChartLayout } from './chart-layout.js';

/** The session machine's chart, its current state highlighted. */
export function renderSessionChart(state: string): SVGElement {
  return drawChart('session', CHART_LAYOUTS.session!, state, { id: 'chart-session' });
}

/**
 * A run's chart (the run machine, its path and current state) and, below it, each sub-agent
 * run's chart, linked both ways with the state of the parent that holds them (the state that
 * spawns the run's children), down to any depth. Selecting a state lists the steps that ran in it.
 */
export function renderRunCharts(node: RunTreeNode, depth = 0, parent?: RunTreeNode): HTMLElement {
  const layout = CHART_LAYOUTS.run!;
  const path = runPath(layout, node.timeline, node.state);
  const holder = layout.states.find((s) => s.spawns.length > 0)?.path;
  const children = new Map<string, number>();
  if (holder && node.children.length) children.set(holder, node.children.length);
  const pending = (node.decisions ?? []).filter((d) => d.decision === 'pending');
  const steps = h(
    'div',
    { class: 'state-steps', 'aria-live': 'polite' },
    h(
      'span',
      { class: 'muted' },
      'Select a state (click, or Tab then Enter) to list the steps that ran in it.',
    ),
  );
  const select = (state: string) => {
    showSteps(steps, node, path, state, state === holder ? node.children : []);
    steps
      .closest('.run-chart')
      ?.querySelectorAll(':scope > .chart-scroll g.state-node')
      .forEach((g) => g.classList.toggle('selected', g.getAttribute('data-state') === state));
  };
  const chart = () => {
    const svg = drawChart(depth === 0 ? 'run' : 'subrun', layout, node.state, {
      id: `chart-${node.runId}`,
      path,
      children,
      onSelect: select,
    });
    svg.setAttribute('data-run', node.runId);
    return h('div', { class: 'chart-scroll' }, svg);
  };
  // A sub-agent run runs the same machine: its path in a line, its chart on demand.
  const body: Child[] =
    depth === 0
      ? [zoomButton(), chart()]
      : [compactPath(layout, path, node.state, select), fullChartButton(chart)];
  return h(
    'div',
    { class: 'run-chart', id: `chart-${node.runId}`, 'data-run': node.runId, 'data-depth': depth },
    h(
      'div',
      { class: 'chart-head' },
      depth ? `sub-agent run (depth ${depth}) ` : 'run ',
      h('b', {}, node.agentPath.join(' › ')),
      ' ',
      h('span', { class: 'badge' }, node.state),
      pending.length
        ? [
            ' ',
            h(
              'span',
              { class: 'badge held' },
              `waits for approval: ${pending.map((d) => d.name).join(', ')}`,
            ),
          ]
        : null,
      parent && holder
        ? [' · in ', chartLink(parent, `${parent.agentPath.join(' › ')} ${holder}`)]
        : null,
    ),
    body,
    steps,
    node.children.length
      ? h(
          'div',
          { class: 'subcharts' },
          node.children.map((child) => renderRunCharts(child, depth + 1, node)),
        )
      : null,
  );
}

/**
 * The chart opens at its own size, where its text is 11px (the pane scrolls); "fit to width"
 * shrinks it into the pane for an overview, "actual size" goes back.
 */
function zoomButton(): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'chart-zoom',
      'aria-pressed': 'false',
      onclick: (event) => {
        const button = event.currentTarget as HTMLButtonElement;
        const fit = button.nextElementSibling?.classList.toggle('fit') === true;
        button.setAttribute('aria-pressed', String(fit));
        button.textContent = fit ? 'actual size' : 'fit to width';
      },
    },
    'fit to width',
  );
}

/** Shows (and hides) a sub-agent run's full chart below its path, drawn at the first click. */
function fullChartButton(chart: () => HTMLElement): HTMLButtonElement {
  let drawn: HTMLElement | undefined;
  return h(
    'button',
    {
      type: 'button',
      class: 'chart-full-toggle',
      'aria-expanded': 'false',
      onclick: (event) => {
        const button = event.currentTarget as HTMLButtonElement;
        const open = button.getAttribute('aria-expanded') !== 'true';
        if (open && !drawn) {
          drawn = chart();
          button.after(drawn);
        }
        drawn?.toggleAttribute('hidden', !open);
        button.setAttribute('aria-expanded', String(open));
        button.textContent = open ? 'hide the full chart' : 'show the full chart';
      },
    },
    'show the full chart',
  );
}

/**
 * A run's path in one line: the states it entered, in the order it first entered them, with
 * how often (compound states left out: their states say it), its current state marked. Each
 * state lists its steps when chosen.
 */
function compactPath(
  layout: ChartLayout,
  path: RunPath,
  state: string,
  select: (state: string) => void,
): HTMLOListElement {
  const compound = new Set(
    layout.states.filter((s) => s.type === 'compound' || s.type === 'parallel').map((s) => s.path),
  );
  const hops = [...path.visits.entries()].filter(([p]) => !compound.has(p));
  const current = activePaths(state);
  return h(
    'ol',
    { class: 'compact-path', 'aria-label': 'the states this run went through' },
    hops.map(([p, visit], i) =>
      h(
        'li',
        {},
        i ? h('span', { class: 'arrow', 'aria-hidden': 'true' }, '→') : null,
        h(
          'button',
          {
            type: 'button',
            class: `hop${current.has(p) ? ' current' : ''}`,
            'data-state': p,
            title: visitText(path, p),
            onclick: () => select(p),
          },
          `${p}${visit.entered > 1 ? ` ×${visit.entered}` : ''}${current.has(p) ? ' (now)' : ''}`,
        ),
      ),
    ),
  );
}

/** A link to a run's chart. */
function chartLink(node: RunTreeNode, text: string): HTMLAnchorElement {
  return h(
    'a',
    {
      href: `#chart-${node.runId}`,
      class: 'chart-link',
      'data-run': node.runId,
      onclick: (event) => {
        event.preventDefault();
        const el = document.getElementById(`chart-${node.runId}`);
        el?.scrollIntoView({ block: 'nearest' });
        el?.querySelector<HTMLElement | SVGElement>('g.state-node, .compact-path button')?.focus();
      },
    },
    text,
  );
}

/** The steps that ran in `state` (and the sub-agent runs it holds) in `box`. */
function showSteps(
  box: HTMLElement,
  node: RunTreeNode,
  path: RunPath,
  state: string,
  held: readonly RunTreeNode[],
): void {
  const visit = path.visits.get(state);
  const list = visit?.steps ?? [];
  const items: Child[] = list.map((step) =>
    h(
      'li',
      { 'data-step': step.step },
      h(
        'a',
        {
          href: '#',
          onclick: (event) => {
            event.preventDefault();
            const li = document.querySelector<HTMLElement>(
              `.run-node[data-run="${node.runId}"] li[data-step="${step.step}"]`,
            );
            li?.scrollIntoView({ block: 'nearest' });
          },
        },
        `#${step.step} ${step.kind}`,
      ),
      ` ${describe(step)}${step.durationMs !== undefined ? ` · ${dur(step.durationMs)}` : ''}`,
    ),
  );
  append(
    clear(box),
    h('b', {}, state),
    ` · ${visitText(path, state) || 'not entered by this run'} · ${list.length} step(s)`,
    items.length ? h('ul', { class: 'chart-steps' }, items) : null,
    held.length
      ? h(
          'div',
          {},
          'sub-agent runs here: ',
          held.map((child) => [
            chartLink(child, `${child.agentPath.join(' › ')} (${child.state})`),
            ' ',
          ]),
        )
      : null,
  );
}

/** A step in a few words: the tool it ran, the calls the model asked for, what a check said. */
function describe(step: TimelineStep): string {
  if (step.tool)
    return `${step.tool.name ?? step.tool.callId}${step.tool.rejected ? ' (rejected)' : step.tool.isError ? ' (error)' : ''}`;
  if (step.model) {
    return step.model.toolCalls.length
      ? `asked for ${step.model.toolCalls.map((c) => c.name).join(', ')}`
      : 'answered';
  }
  if (step.approvals) {
    return step.approvals
      .map((a) => `${a.callId}: ${a.needsApproval ? 'needs approval' : 'ok'}`)
      .join(', ');
  }
  if (step.guardrails)
    return step.guardrails.map((g) => `${g.name}: ${g.tripwire ? 'tripped' : 'passed'}`).join(', ');
  return '';
}
