import { append, byId, clear, h } from '../dom.js';
import { themeToggle } from '../theme-toggle.js';
import type { Page } from '../page.js';

/** The status filter's choices (`''`: any status). */
const STATUSES = ['', 'active', 'suspended', 'completed', 'failed', 'deleted'];

/**
 * The controls: the user (an input when the inspector serves all users), the status filter,
 * what runs the decisions (the app's agents, or nobody: record-only), the link to the user's
 * schedules (when the store keeps them), the link to the eval runs, the live badge and the error
 * box.
 */
export function renderControls(page: Page): void {
  const { info, state } = page;
  const box = clear(byId('controls'));
  const user = info.allUsers
    ? h('input', {
        id: 'user',
        'aria-label': 'user id',
        placeholder: 'user id (empty: anonymous)',
        value: state.user,
        onchange: (e) => {
          state.user = (e.target as HTMLInputElement).value.trim();
          state.selected = null;
          state.pages = [];
          state.pageCursor = null;
          void page.loadSessions();
          void page.loadWorkflows();
          page.startLive();
        },
      })
    : h('span', { class: 'badge', id: 'user' }, `user: ${info.userId || '(anonymous)'}`);
  const status = h(
    'select',
    {
      id: 'status-filter',
      'aria-label': 'session status',
      onchange: (e) => {
        state.status = (e.target as HTMLSelectElement).value;
        state.pages = [];
        state.pageCursor = null;
        void page.loadSessions();
      },
    },
    STATUSES.map((s) =>
      h('option', { value: s, selected: s === state.status }, s || 'any session status'),
    ),
  );
  const mode = info.recordOnly
    ? h(
        'span',
        { class: 'badge', id: 'mode', title: 'no agent of the app runs here' },
        'decisions are recorded; the run continues when the app resumes it',
      )
    : h('span', { class: 'badge', id: 'mode' }, `runs with: ${info.agents.join(', ')}`);
  // the user's schedules, when the store keeps them (in place of a session, like their memory)
  const schedules = info.schedules
    ? h(
        'a',
        {
          href: '#schedules',
          id: 'schedules-link',
          onclick: (e) => {
            e.preventDefault();
            void page.openSchedules();
          },
        },
        'Schedules',
      )
    : null;
  // the eval runs the store holds (in place of a session)
  const evals = h(
    'a',
    {
      href: '#evals',
      id: 'evals-link',
      onclick: (e) => {
        e.preventDefault();
        void page.openEvals();
      },
    },
    'Evals',
  );
  append(box, [
    user,
    status,
    mode,
    schedules,
    evals,
    h('span', { class: 'badge live', id: 'live-badge' }, 'live'),
    themeToggle(),
    h('span', { class: 'error-box', id: 'error', role: 'alert' }, state.error),
  ]);
}
