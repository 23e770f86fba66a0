import { append, byId, clear, h } from './dom.js';
import type { Page } from './page.js';

/** The status filter's choices (`''`: any status). */
const STATUSES = ['', 'active', 'suspended', 'completed', 'failed', 'deleted'];

/**
 * The controls: the user (an input when the inspector serves all users), the status filter,
 * what runs the decisions (the app's agents, or nobody: record-only), the live badge and the
 * error box.
 */
export function renderControls(page: Page): void {
  const { info, state } = page;
  const box = clear(byId('controls'));
  const user = info.allUsers
    ? h('input', {
        id: 'user',
        placeholder: 'user id (empty: anonymous)',
        value: state.user,
        onchange: (e) => {
          state.user = (e.target as HTMLInputElement).value.trim();
          state.selected = null;
          void page.loadSessions();
          page.startLive();
        },
      })
    : h('span', { class: 'badge', id: 'user' }, `user: ${info.userId || '(anonymous)'}`);
  const status = h(
    'select',
    {
      id: 'status-filter',
      onchange: (e) => {
        state.status = (e.target as HTMLSelectElement).value;
        void page.loadSessions();
      },
    },
    STATUSES.map((s) => h('option', { value: s, selected: s === state.status }, s || 'any status')),
  );
  const mode = info.recordOnly
    ? h(
        'span',
        { class: 'badge', id: 'mode', title: 'no agent of the app runs here' },
        'decisions are recorded; the run continues when the app resumes it',
      )
    : h('span', { class: 'badge', id: 'mode' }, `runs with: ${info.agents.join(', ')}`);
  append(box, [
    user,
    status,
    mode,
    h('span', { class: 'badge live', id: 'live-badge' }, 'live'),
    h('span', { class: 'error-box', id: 'error' }, state.error),
  ]);
}
