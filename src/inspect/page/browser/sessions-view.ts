import type { SessionPage } from './api-types.js';
import { append, byId, clear, h } from './dom.js';
import { time, usd } from './format.js';
import { api } from './inspector-api.js';
import type { Page } from './page.js';
import { fail } from './page-error.js';
import { runBadge, soFar } from './run-status.js';

/** Reads the first page of sessions (or, with `more`, the next) under the filter, and renders them. */
export async function loadSessions(page: Page, more?: boolean): Promise<void> {
  const { state } = page;
  const q =
    '/api/sessions?limit=50' +
    (state.status ? `&status=${state.status}` : '') +
    (more && state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : '');
  try {
    const answer = await api<SessionPage>(state.user, q);
    state.sessions = more ? state.sessions.concat(answer.sessions) : answer.sessions;
    state.cursor = answer.nextCursor || null;
    renderSessions(page);
  } catch (error) {
    fail(state, error);
  }
}

/** The sessions list (each row opens its session), a `more` button, and the live log under it. */
function renderSessions(page: Page): void {
  const { state } = page;
  const box = clear(byId('sessions'));
  append(box, h('h2', {}, 'Sessions'));
  const rows = state.sessions.map((s) =>
    h(
      'tr',
      {
        class: `session${s.sessionId === state.selected ? ' selected' : ''}`,
        'data-session': s.sessionId,
        onclick: () => void page.openSession(s.sessionId),
      },
      h(
        'td',
        {},
        s.sessionId,
        s.parentId ? h('div', { class: 'muted' }, `fork of ${s.parentId}`) : null,
      ),
      h(
        'td',
        {},
        h('span', { class: 'badge' }, s.status),
        h('div', {}, runBadge(s.runStatus)),
        s.pendingApprovals
          ? h('div', { class: 'badge pending-count' }, `${s.pendingApprovals} pending`)
          : null,
      ),
      h('td', {}, `v${s.version}`, h('div', { class: 'muted' }, time(s.updatedAt))),
      h(
        'td',
        {},
        `${soFar(s).inputTokens + soFar(s).outputTokens} tok`,
        h('div', { class: 'muted' }, usd(soFar(s).costUsd)),
      ),
    ),
  );
  append(
    box,
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'session'),
          h('th', {}, 'status'),
          h('th', {}, 'version'),
          h('th', {}, 'usage'),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
  if (!rows.length) append(box, h('p', { class: 'muted' }, 'No sessions.'));
  if (state.cursor)
    append(box, h('button', { onclick: () => void page.loadSessions(true) }, 'more'));
  append(box, h('h2', {}, 'Live'), h('div', { id: 'live-log' }));
}
