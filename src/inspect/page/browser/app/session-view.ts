import type { HistoryItem, RunDetail, SessionDetail } from '../api-types.js';
import { append, byId, clear, h } from '../dom.js';
import { json, time, tokens, usd } from '../format.js';
import { api, sessionPath } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { shown } from '../page-state.js';
import { renderActions } from './actions-view.js';
import { renderPending } from './approvals-view.js';
import { renderInDoubt } from './in-doubt-view.js';
import { runBadge, runReason, soFar } from '../run-status.js';
import { renderRun } from '../trace/run-view.js';
import { renderRunCharts, renderSessionChart } from '../charts/run-chart-view.js';
import { resetFeed } from './live-feed.js';
import { renderOrigin } from '../trace/time-travel-view.js';

/**
 * Opens a session: its detail and its newest run, shown together once both are in. An answer
 * for a session (or run) asked before the last one asked is dropped: it never replaces what the
 * user opened after it.
 */
export async function openSession(page: Page, id: string): Promise<void> {
  const { state } = page;
  const changed = id !== state.selected;
  if (changed) {
    state.result = '';
    state.forkId = '';
    state.forkAt = '';
  }
  state.selected = id;
  state.workflowId = null;
  state.workflow = null;
  if (changed) resetFeed(page);
  const asked = ++state.asked;
  try {
    const detail = await api<SessionDetail>(state.user, sessionPath(id));
    const runId = detail.runs[0] ? detail.runs[0].runId : null;
    if (asked !== state.asked) return;
    const run = runId
      ? await api<RunDetail>(state.user, `${sessionPath(id)}/runs/${encodeURIComponent(runId)}`)
      : null;
    if (asked !== state.asked) return;
    // A refresh that reads what is shown already draws nothing: the page does not flicker, and
    // a field the user is typing in is not replaced under the cursor.
    const unchanged =
      state.detail?.session.sessionId === id &&
      state.runId === runId &&
      JSON.stringify([detail, run]) === JSON.stringify([state.detail, state.run]);
    if (unchanged) return;
    state.detail = detail;
    state.runId = runId;
    state.run = run;
    document.querySelectorAll('tr.session').forEach((tr) => {
      tr.classList.toggle('selected', tr.getAttribute('data-session') === id);
    });
    renderDetail(page);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

/** Shows another run of the open session. */
export async function openRun(page: Page, runId: string): Promise<void> {
  const { state } = page;
  const asked = ++state.asked;
  try {
    const run = await api<RunDetail>(
      state.user,
      `${sessionPath(shown(state))}/runs/${encodeURIComponent(runId)}`,
    );
    if (asked !== state.asked) return;
    state.runId = runId;
    state.run = run;
    renderDetail(page);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

/**
 * The open session: its state, run status and usage, pending approvals, actions, both machines'
 * charts, its runs, the shown run, the history tail and the record as JSON.
 */
function renderDetail(page: Page): void {
  const { state } = page;
  const d = state.detail;
  if (!d) return;
  const s = d.session;
  const box = clear(byId('detail'));
  append(
    box,
    h('h2', {}, 'Session ', h('span', { id: 'session-id' }, s.sessionId)),
    d.workflow ? workflowLink(page, d.workflow) : null,
    page.info.memory ? memoryLink(page) : null,
    h(
      'p',
      {},
      h('span', { class: 'badge', id: 'session-state' }, s.state),
      ' ',
      runBadge(s.runStatus),
      ` v${s.version} · `,
      `${tokens(soFar(s))} · ${usd(soFar(s).costUsd)} · ${soFar(s).turns} turns · updated ${time(s.updatedAt)}`,
    ),
    runReason(s.runStatus),
    s.parentId ? renderOrigin(page, s.sessionId) : null,
    renderPending(page, d.pendingApprovals),
    renderInDoubt(page, s.runStatus),
    renderActions(page),
    h(
      'div',
      { class: 'charts' },
      h(
        'div',
        { class: 'chart' },
        h('div', { class: 'muted' }, 'session machine'),
        renderSessionChart(s.state),
      ),
      h(
        'div',
        { class: 'chart' },
        h(
          'div',
          { class: 'muted' },
          'run machine · ',
          h('span', { id: 'run-state' }, state.run ? state.run.state : 'no run'),
        ),
        state.run
          ? renderRunCharts(state.run.tree)
          : h(
              'p',
              { class: 'muted hint', id: 'run-chart-empty' },
              'No run to draw yet: send this session a message (run its agent with this sessionId) and its run appears here, with the path it takes through the machine.',
            ),
      ),
    ),
    h('h2', {}, 'Runs'),
    d.runs.length
      ? null
      : h('p', { class: 'muted hint' }, 'No run yet: a message to the session starts one.'),
    h(
      'ul',
      {},
      d.runs.map((r) =>
        h(
          'li',
          {},
          h(
            'a',
            {
              href: '#',
              'data-run': r.runId,
              onclick: (e) => {
                e.preventDefault();
                void page.openRun(r.runId);
              },
            },
            r.runId,
          ),
          ' ',
          h('span', { class: 'badge' }, r.state),
          r.status && r.status !== r.state
            ? [
                ' ',
                h('span', { class: `badge${r.status === 'crashed' ? ' error' : ''}` }, r.status),
              ]
            : null,
          r.current ? ' (current)' : '',
          ` started ${time(r.startedAt)}`,
        ),
      ),
    ),
    state.run ? renderRun(page, state.run) : null,
    ...renderHistory(page, s.sessionId, d.history),
    h('details', {}, h('summary', {}, 'Session record (JSON)'), json(s)),
  );
}

/**
 * The history pane: the newest items, and a "Load older" control that pages back through the
 * rest (`/api/sessions/:id/history?before=`), each page put above the items shown, until the
 * first item is in.
 */
function renderHistory(page: Page, sessionId: string, history: SessionDetail['history']) {
  let from = history.from;
  const line = (item: HistoryItem, at: number) =>
    h('div', { class: 'message' }, h('span', { class: 'muted' }, `#${at} `), describeItem(item));
  const heading = h('h2', {});
  const list = h(
    'div',
    { id: 'history' },
    history.items.map((item, i) => line(item, history.from + i)),
  );
  const older = h('button', { id: 'history-older', type: 'button' }, 'Load older');
  const shownCount = () => {
    heading.textContent = `History (${history.total - from} of ${history.total})`;
    older.hidden = from === 0;
  };
  older.addEventListener('click', () => {
    older.setAttribute('disabled', '');
    const path = `${sessionPath(sessionId)}/history?before=${from}&limit=100`;
    api<SessionDetail['history']>(page.state.user, path)
      .then((got) => {
        list.prepend(...got.items.map((item, i) => line(item, got.from + i)));
        from = got.from;
        shownCount();
      })
      .catch((error: unknown) => fail(page.state, error))
      .finally(() => older.removeAttribute('disabled'));
  });
  shownCount();
  return [
    heading,
    history.items.length
      ? null
      : h('p', { class: 'muted hint' }, 'No messages yet: the history fills as the session runs.'),
    older,
    list,
  ];
}

/** A history item in one line: a message, a tool call or its result, else its type. */
function describeItem(item: HistoryItem): string {
  if (item.type === 'message') {
    const content = typeof item.content === 'string' ? item.content : JSON.stringify(item.content);
    return `${item.role}: ${content}`;
  }
  if (item.type === 'tool_call') return `call ${item.name}(${item.arguments})`;
  if (item.type === 'tool_result') return `result ${item.name}: ${item.output}`;
  return item.type;
}

/** A link to the memory of the session's user (what its agent recalls across sessions). */
function memoryLink(page: Page): HTMLParagraphElement {
  const user = page.state.user || page.info.userId;
  return h(
    'p',
    { id: 'session-memory' },
    h(
      'a',
      {
        href: '#memory',
        id: 'memory-link',
        onclick: (e) => {
          e.preventDefault();
          void page.openMemory();
        },
      },
      user ? `Memory of user ${user}` : 'Memory of the anonymous bucket',
    ),
    ': what agents recall of them across sessions, and their working memory.',
  );
}

/** The workflow instance whose agent the session is, a link to it. */
function workflowLink(
  page: Page,
  link: NonNullable<SessionDetail['workflow']>,
): HTMLParagraphElement {
  return h(
    'p',
    { id: 'session-workflow' },
    'The agent of workflow instance ',
    h(
      'a',
      {
        href: `#workflow=${encodeURIComponent(link.id)}`,
        class: 'workflow-link',
        'data-workflow': link.id,
        onclick: (e) => {
          e.preventDefault();
          void page.openWorkflow(link.id);
        },
      },
      link.id,
    ),
    ` (${link.workflow}, invoked as ${link.actorId}): its decisions go through the workflow.`,
  );
}
