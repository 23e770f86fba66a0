import type { WorkflowPage, WorkflowSummary } from '../workflow-api-types.js';
import { append, clear, h } from '../dom.js';
import { time } from '../format.js';
import { api } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';

/**
 * Reads the app's workflow instances (with `more`: the next page) and lists them under the
 * sessions, in their own table: a workflow's instances are records beside the sessions, listed
 * apart (`/api/workflows`, the store's `list({ kind: 'workflow' })`).
 */
export async function loadWorkflows(page: Page, more?: boolean): Promise<void> {
  const { state } = page;
  const pane = document.getElementById('workflow-pane');
  if (!pane) return;
  try {
    const cursor = more ? state.workflowCursor : null;
    const query = `/api/workflows?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const answer = await api<WorkflowPage>(state.user, query);
    state.workflows = more ? [...state.workflows, ...answer.workflows] : answer.workflows;
    state.workflowCursor = answer.nextCursor ?? null;
    renderWorkflows(page, pane);
  } catch (error) {
    fail(state, error);
  }
}

function renderWorkflows(page: Page, pane: HTMLElement): void {
  const { state } = page;
  const rows = state.workflows.map((w) => row(page, w));
  append(
    clear(pane),
    h('h2', {}, 'Workflows'),
    rows.length
      ? h(
          'table',
          { id: 'workflow-table', 'aria-label': 'workflow instances' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'instance'),
              h('th', { scope: 'col' }, 'status'),
              h('th', { scope: 'col' }, 'updated'),
            ),
          ),
          h('tbody', {}, rows),
        )
      : h(
          'p',
          { class: 'muted hint', id: 'workflows-empty' },
          `No instances yet of ${page.info.workflows.join(', ')}.`,
        ),
    state.workflowCursor
      ? h(
          'button',
          {
            type: 'button',
            'data-page': 'more-workflows',
            onclick: () => void loadWorkflows(page, true),
          },
          'more ›',
        )
      : null,
  );
}

function row(page: Page, w: WorkflowSummary): HTMLTableRowElement {
  const open = (e: Event) => {
    e.preventDefault();
    e.stopPropagation();
    void page.openWorkflow(w.id);
  };
  const selected = w.id === page.state.workflowId;
  return h(
    'tr',
    { class: `workflow${selected ? ' selected' : ''}`, 'data-workflow': w.id, onclick: open },
    h(
      'td',
      {},
      h(
        'a',
        {
          href: `#workflow=${encodeURIComponent(w.id)}`,
          class: 'workflow-link',
          'data-workflow': w.id,
          'aria-current': selected ? 'true' : null,
          onclick: open,
        },
        w.id,
      ),
      h('div', { class: 'muted' }, `workflow ${w.workflow}`),
    ),
    h(
      'td',
      {},
      h('span', { class: 'badge' }, w.status),
      h('div', { class: 'muted workflow-state' }, w.state),
      w.awaitingApproval ? h('div', { class: 'badge pending-count' }, 'waits for approval') : null,
      w.nextTimerAt ? h('div', { class: 'muted' }, `timer ${time(w.nextTimerAt)}`) : null,
    ),
    h('td', {}, time(w.updatedAt)),
  );
}
