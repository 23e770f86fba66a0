import type { WorkflowDetail, WorkflowHop } from '../workflow-api-types.js';
import { append, byId, clear, h, type Child } from '../dom.js';
import { dur, json, time } from '../format.js';
import { api, workflowPath as workflowApiPath } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { layoutGraph } from '../charts/graph-layout.js';
import { drawChart } from '../charts/state-chart.js';
import { activePaths } from '../charts/state-chart-path.js';
import { chartEvent, workflowPath } from '../charts/workflow-path.js';
import { resetFeed } from './live-feed.js';
import { nestedSessions, nestedWorkflows } from './workflow-sessions-view.js';

/**
 * Opens a workflow instance in the detail pane (in place of a session): the app's chart laid
 * out here from its machine's graph, its current state, the path it took, its durable steps and
 * the agent sessions it invoked under the states that invoked them. An answer for an instance
 * asked before the last one asked is dropped.
 */
export async function openWorkflow(page: Page, id: string): Promise<void> {
  const { state } = page;
  const changed = id !== state.workflowId;
  if (changed) {
    state.travel = null;
    state.result = '';
    state.workflow = null;
  }
  state.workflowId = id;
  state.selected = null;
  state.detail = null;
  if (changed) resetFeed(page);
  const asked = ++state.asked;
  try {
    const detail = await api<WorkflowDetail>(state.user, workflowApiPath(id));
    if (asked !== state.asked) return;
    // A read again (the page's poll) that finds what is shown draws nothing: no flicker, and
    // a reason being typed stays.
    if (JSON.stringify(detail) === JSON.stringify(state.workflow)) return;
    state.workflow = detail;
    document.querySelectorAll('tr.session, tr.workflow').forEach((tr) => {
      tr.classList.toggle('selected', tr.getAttribute('data-workflow') === id);
    });
    renderWorkflow(page);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

/** The open instance, as it was at the picked hop of its path (time travel) or now. */
function renderWorkflow(page: Page): void {
  const { state } = page;
  const w = state.workflow;
  if (!w) return;
  const travel = state.travel === null ? undefined : w.path[state.travel];
  const hops = travel ? w.path.slice(0, state.travel! + 1) : w.path;
  const shownState = travel ? travel.state : w.state;
  append(
    clear(byId('detail')),
    h(
      'h2',
      { id: 'workflow-title' },
      `Workflow ${w.workflow.id} `,
      h('span', { class: 'badge' }, w.workflow.status),
      ' ',
      h('span', { class: 'muted' }, `${w.workflow.workflow} · v${w.workflow.version}`),
    ),
    h(
      'p',
      { id: 'workflow-state' },
      travel ? `At ${time(travel.at)} (time travel): ` : 'Now: ',
      h('b', { 'data-state': shownState }, shownState || '(none)'),
      travel
        ? [' ', h('button', { type: 'button', onclick: () => travelTo(page, null) }, 'back to now')]
        : null,
    ),
    h('div', { id: 'action-result', role: 'status' }, state.result),
    chart(page, w, hops, shownState),
    h('h2', {}, 'Path'),
    pathList(page, w.path),
    travel ? travelBox(w, state.travel!) : null,
    h('h2', {}, 'Agent sessions it invoked'),
    nestedSessions(page, w),
    w.children.length ? [h('h2', {}, 'Workflows it invoked'), nestedWorkflows(page, w)] : null,
    h('h2', {}, 'Durable steps'),
    stepList(w),
    w.timers.length
      ? [
          h('h2', {}, 'Durable timers'),
          h(
            'ul',
            { id: 'workflow-timers' },
            w.timers.map((t) =>
              h(
                'li',
                {},
                `${w.graph ? chartEvent(t.event, w.graph) : t.event} due ${time(t.dueAt)}`,
              ),
            ),
          ),
        ]
      : null,
    h('h2', {}, 'Context'),
    json(w.context),
  );
}

/** The app's chart, its state highlighted, the path (up to the picked hop) drawn on it. */
function chart(page: Page, w: WorkflowDetail, hops: WorkflowHop[], shown: string): Child {
  if (!w.graph) {
    return h(
      'p',
      { class: 'muted', id: 'workflow-no-chart' },
      `This inspector does not host workflow "${w.workflow.workflow}": start it with that host in its workflows to see the chart and act.`,
    );
  }
  const layout = layoutGraph(w.workflow.workflow, w.graph);
  const nested = new Map<string, number>();
  for (const s of w.sessions) nested.set(s.state, (nested.get(s.state) ?? 0) + 1);
  const svg = drawChart('workflow', layout, shown, {
    id: 'chart-workflow',
    path: workflowPath(layout, w.graph, hops),
    children: nested,
    childKind: 'agent session',
    onSelect: (statePath) =>
      document
        .querySelector<HTMLElement>(`.nested[data-state="${CSS.escape(statePath)}"]`)
        ?.scrollIntoView({ block: 'nearest' }),
  });
  return h(
    'div',
    { class: 'charts' },
    h(
      'div',
      { class: 'chart' },
      h('div', { class: 'muted' }, `${w.workflow.workflow} machine`),
      h(
        'div',
        { class: 'run-chart', id: 'workflow-chart' },
        h('div', { class: 'chart-scroll' }, svg),
      ),
    ),
  );
}

/** The events it took, oldest first, each a button that travels to it. */
function pathList(page: Page, path: WorkflowHop[]): HTMLOListElement {
  return h(
    'ol',
    { id: 'workflow-path', 'aria-label': 'the events this instance took' },
    path.map((hop, i) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            class: `hop${i === page.state.travel ? ' current' : ''}`,
            'data-hop': i,
            'data-state': hop.state,
            onclick: () => travelTo(page, i),
          },
          `${time(hop.at)} · ${hop.type} (${hop.source}) → ${hop.state || hop.status}`,
        ),
      ),
    ),
  );
}

function travelTo(page: Page, at: number | null): void {
  page.state.travel = at;
  renderWorkflow(page);
}

/** What changed at hop `i`: the states left and entered, and the steps that ended then. */
function travelBox(w: WorkflowDetail, i: number): HTMLElement {
  const hop = w.path[i]!;
  const before = i > 0 ? w.path[i - 1]! : undefined;
  const was = activePaths(before?.state);
  const is = activePaths(hop.state);
  const left = [...was].filter((p) => !is.has(p));
  const entered = [...is].filter((p) => !was.has(p));
  const ended = w.steps.filter((s) => s.step < hop.step && (!before || s.step > before.step));
  const started = w.sessions.filter((s) => entered.includes(s.state));
  return h(
    'div',
    { id: 'travel', 'data-hop': i },
    h('b', {}, hop.type),
    ` from ${hop.source}${hop.eventId ? ` (event id ${hop.eventId})` : ''} at ${time(hop.at)}`,
    before ? `, ${dur(hop.at - before.at)} after the event before` : '',
    h(
      'ul',
      {},
      h('li', { 'data-change': 'state' }, `state: ${before?.state || '(start)'} → ${hop.state}`),
      left.length ? h('li', { 'data-change': 'left' }, `left: ${left.join(', ')}`) : null,
      entered.length
        ? h('li', { 'data-change': 'entered' }, `entered: ${entered.join(', ')}`)
        : null,
      hop.status !== 'active'
        ? h('li', { 'data-change': 'status' }, `status: ${hop.status}`)
        : null,
      ended.map((s) =>
        h('li', { 'data-change': 'step' }, `step ${s.name} ${s.outcome}${outputText(s.output)}`),
      ),
      started.map((s) =>
        h('li', { 'data-change': 'session' }, `invoked agent session ${s.sessionId}`),
      ),
    ),
  );
}

const outputText = (output: unknown) =>
  output === undefined ? '' : `: ${typeof output === 'string' ? output : JSON.stringify(output)}`;

/** The durable steps that ended (with their outcome) and those in flight. */
function stepList(w: WorkflowDetail): Child {
  if (!w.steps.length && !w.running.length) return h('p', { class: 'muted' }, 'None.');
  return h(
    'ul',
    { id: 'workflow-steps' },
    w.steps.map((s) =>
      h(
        'li',
        { 'data-step': s.step, 'data-outcome': s.outcome },
        h('b', {}, s.name),
        ` in ${s.state || '?'} · ${s.outcome}`,
        s.error ? `: ${s.error.message}` : outputText(s.output),
        ` · ${time(s.at)}`,
        s.startedAt !== undefined ? ` · ${dur(s.at - s.startedAt)}` : '',
        s.restarts ? ` · restarted ${s.restarts}×` : '',
      ),
    ),
    w.running.map((s) =>
      h(
        'li',
        { 'data-outcome': 'running' },
        h('b', {}, s.name),
        ` in ${s.state || '?'} · running since ${time(s.startedAt)}`,
        s.restarts ? ` · restarted ${s.restarts}×` : '',
      ),
    ),
  );
}
