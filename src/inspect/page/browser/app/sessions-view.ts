import type { SessionPage, SessionSummary } from '../api-types.js';
import { append, byId, clear, h } from '../dom.js';
import { time, tokens, usd } from '../format.js';
import { api } from '../inspector-api.js';
import { listQueryOf, renderListFilters } from '../list-filters.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { runBadge, soFar } from '../run-status.js';

/** The page sizes the pager offers. */
const PAGE_SIZES = [10, 25, 50, 100];

/**
 * Reads the shown page of sessions under the filters (with `more`: the next page) and renders
 * it. The server pages with a cursor (`inspect/session-listing.ts`): the page keeps the
 * cursors of the pages before to go back. A read that finds what is shown draws nothing (a live refresh does
 * not move the keyboard's focus).
 */
export async function loadSessions(page: Page, more?: boolean): Promise<void> {
  const { state } = page;
  if (more && state.cursor) {
    state.pages.push(state.pageCursor);
    state.pageCursor = state.cursor;
  }
  try {
    const query = listQueryOf(page, pageSize(page));
    const asked = ++state.listAsked;
    const answer = await api<SessionPage>(state.user, query);
    // an answer to a read asked before the last one (a slow refresh, then Next) is dropped
    if (asked !== state.listAsked) return;
    const shown = JSON.stringify([query, state.selected, answer]);
    state.sessions = answer.sessions;
    state.cursor = answer.nextCursor || null;
    if (byIdOrNull('list-pane')?.getAttribute('data-shown') === shown) return;
    renderSessions(page, answer);
    byId('list-pane').setAttribute('data-shown', shown);
  } catch (error) {
    fail(state, error);
  }
}

/** Goes back one page. */
async function previous(page: Page): Promise<void> {
  const { state } = page;
  state.pageCursor = state.pages.pop() ?? null;
  await loadSessions(page);
}

function pageSize(page: Page): number {
  return page.state.pageSize;
}

function byIdOrNull(id: string): HTMLElement | null {
  return document.getElementById(id);
}

/** The sessions pane's parts, made once: the heading, the filters, the list and the live feed. */
function panes(page: Page): HTMLElement {
  const existing = byIdOrNull('list-pane');
  if (existing) return existing;
  const box = clear(byId('sessions'));
  const list = h('div', { id: 'list-pane' });
  append(
    box,
    h('h2', {}, 'Sessions'),
    renderListFilters(page),
    list,
    h('div', { id: 'feed-pane' }),
  );
  return list;
}

/**
 * The list: one row a session (its id a link that opens it; arrow keys move between rows),
 * its status, what its run does and why a failed or crashed run stopped, the calls waiting for
 * a decision, its agent and usage; a pager; a hint when nothing is listed.
 */
function renderSessions(page: Page, answer: SessionPage): void {
  const { state } = page;
  const focused = document.activeElement?.getAttribute('data-session') ?? null;
  const box = clear(panes(page));
  const rows = state.sessions.map((s) => row(page, s));
  if (rows.length) {
    append(
      box,
      h(
        'table',
        { id: 'session-table', 'aria-label': 'sessions' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'session'),
            h('th', { scope: 'col' }, 'status'),
            h('th', { scope: 'col' }, 'updated'),
            h('th', { scope: 'col' }, 'usage'),
          ),
        ),
        h('tbody', {}, rows),
      ),
    );
  } else {
    append(box, h('p', { class: 'muted hint', id: 'list-empty' }, emptyHint(page, answer)));
  }
  append(box, pager(page, answer));
  if (focused) {
    const again = box.querySelector<HTMLElement>(`a[data-session="${CSS.escape(focused)}"]`);
    again?.focus();
  }
}

/** What to do when the list is empty. */
function emptyHint(page: Page, answer: SessionPage): string {
  const { state } = page;
  const filtered =
    state.status || state.list.run || state.list.agent || state.list.text ? true : false;
  if (answer.partial) {
    return `No match in the ${answer.scanned} sessions read: Next reads on.`;
  }
  if (filtered) return 'No sessions match these filters: change or clear them.';
  if (state.pages.length) return 'No more sessions.';
  return 'No sessions yet: a session appears here as soon as an agent runs one with this store.';
}

function row(page: Page, s: SessionSummary): HTMLTableRowElement {
  const { state } = page;
  const usage = soFar(s);
  const rs = s.runStatus;
  // the badge says the error's code; the row says why
  const reason = rs?.error
    ? rs.error.message
    : rs?.status === 'crashed'
      ? 'its process stopped with steps in flight'
      : '';
  // the row and its link open the session once (a click on the link does not reach the row)
  const open = (e: Event) => {
    e.preventDefault();
    e.stopPropagation();
    void page.openSession(s.sessionId);
  };
  return h(
    'tr',
    {
      class: `session${s.sessionId === state.selected ? ' selected' : ''}`,
      'data-session': s.sessionId,
      onclick: open,
    },
    h(
      'td',
      {},
      h(
        'a',
        {
          href: `#session=${encodeURIComponent(s.sessionId)}`,
          class: 'session-link',
          'data-session': s.sessionId,
          'aria-current': s.sessionId === state.selected ? 'true' : null,
          onclick: open,
          onkeydown: (e) => moveFocus(e as KeyboardEvent),
        },
        s.sessionId,
      ),
      s.agent ? h('div', { class: 'muted' }, `agent ${s.agent}`) : null,
      s.parentId ? h('div', { class: 'muted' }, `fork of ${s.parentId}`) : null,
    ),
    h(
      'td',
      {},
      h('span', { class: 'badge' }, s.status),
      h('div', {}, runBadge(rs)),
      s.pendingApprovals
        ? h('div', { class: 'badge pending-count' }, `${s.pendingApprovals} pending`)
        : null,
      rs?.callsInDoubt?.length
        ? h(
            'div',
            { class: 'badge pending-count in-doubt-count' },
            `${rs.callsInDoubt.length} in doubt`,
          )
        : null,
      reason ? h('div', { class: 'row-reason' }, reason) : null,
    ),
    h('td', {}, time(s.updatedAt), h('div', { class: 'muted' }, `v${s.version}`)),
    h('td', {}, tokens(usage), h('div', { class: 'muted' }, usd(usage.costUsd))),
  );
}

/** Arrow keys move between the rows' links. */
function moveFocus(e: KeyboardEvent): void {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const links = [...document.querySelectorAll<HTMLElement>('#session-table a.session-link')];
  const at = links.indexOf(e.target as HTMLElement);
  const next = links[at + (e.key === 'ArrowDown' ? 1 : -1)];
  if (next) {
    e.preventDefault();
    next.focus();
  }
}

/** Previous and next page, where the page is, and the page size. */
function pager(page: Page, answer: SessionPage): HTMLElement {
  const { state } = page;
  const first = state.pages.length * pageSize(page) + 1;
  const size = h(
    'select',
    {
      id: 'page-size',
      'aria-label': 'sessions per page',
      onchange: (e) => {
        state.pageSize = Number((e.target as HTMLSelectElement).value);
        state.pages = [];
        state.pageCursor = null;
        void page.loadSessions();
      },
    },
    PAGE_SIZES.map((n) => h('option', { value: n, selected: n === pageSize(page) }, `${n} a page`)),
  );
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'pages of sessions' },
    h(
      'button',
      {
        type: 'button',
        'data-page': 'previous',
        disabled: state.pages.length === 0,
        onclick: () => void previous(page),
      },
      '‹ previous',
    ),
    h(
      'span',
      { class: 'muted', id: 'page-at' },
      state.sessions.length
        ? `page ${state.pages.length + 1} · ${first}–${first + state.sessions.length - 1}`
        : `page ${state.pages.length + 1}`,
      answer.partial ? ' (more may match)' : '',
    ),
    h(
      'button',
      {
        type: 'button',
        'data-page': 'next',
        disabled: !state.cursor,
        onclick: () => void page.loadSessions(true),
      },
      'next ›',
    ),
    size,
  );
}
