import type { MemoryItem, UserMemory } from '../api-types.js';
import { append, byId, clear, h, type Child } from '../dom.js';
import { time } from '../format.js';
import { api } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { resetFeed } from './live-feed.js';

/**
 * Opens the user's memory across sessions in the detail pane (in place of a session): their
 * scopes with how many memories each holds, each working memory, and their memories newest first
 * (of `resource` when one is picked), each with its kind, source session (a link) and time; more
 * pages on request. An answer asked before the last one asked is dropped.
 */
export async function openMemory(page: Page, resource?: string): Promise<void> {
  const { state } = page;
  state.selected = null;
  state.detail = null;
  state.workflowId = null;
  state.workflow = null;
  resetFeed(page);
  const asked = ++state.asked;
  try {
    const view = await api<UserMemory>(state.user, memoryPath(resource));
    if (asked !== state.asked) return;
    renderMemory(page, view, resource);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

function memoryPath(resource: string | undefined, cursor?: string): string {
  const q = [
    resource === undefined ? '' : `resource=${encodeURIComponent(resource)}`,
    cursor === undefined ? '' : `cursor=${encodeURIComponent(cursor)}`,
  ].filter(Boolean);
  return `/api/memory${q.length ? `?${q.join('&')}` : ''}`;
}

/** A link that runs `go` (a session, a scope). */
function link(text: string, attrs: Record<string, string>, go: () => void): HTMLAnchorElement {
  return h(
    'a',
    {
      href: '#',
      ...attrs,
      onclick: (e) => {
        e.preventDefault();
        go();
      },
    },
    text,
  );
}

function renderMemory(page: Page, view: UserMemory, resource: string | undefined): void {
  const who = view.userId === null ? 'the anonymous bucket' : `user ${view.userId}`;
  const scopeName = (r: string | undefined) => r ?? '(own scope)';
  const rows = h(
    'tbody',
    {},
    view.memories.map((m) => memoryRow(page, m)),
  );
  const more = h('button', { id: 'memory-more', type: 'button' }, 'Load more');
  let cursor = view.nextCursor;
  more.hidden = cursor === undefined;
  more.addEventListener('click', () => {
    more.setAttribute('disabled', '');
    api<UserMemory>(page.state.user, memoryPath(resource, cursor))
      .then((got) => {
        append(
          rows,
          got.memories.map((m) => memoryRow(page, m)),
        );
        cursor = got.nextCursor;
        more.hidden = cursor === undefined;
      })
      .catch((error: unknown) => fail(page.state, error))
      .finally(() => more.removeAttribute('disabled'));
  });
  const working = view.scopes.filter((s) => s.workingMemory !== null);
  append(
    clear(byId('detail')),
    h(
      'div',
      { id: 'memory-view' },
      h('h2', {}, `Memory of ${who}`),
      view.scopes.length
        ? null
        : h(
            'p',
            { class: 'muted hint' },
            'No memory yet: agents with `memory` keep it as they run.',
          ),
      h(
        'table',
        { class: 'memory-scopes' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Scope'), h('th', {}, 'Memories'), h('th', {}, 'Working memory')),
        ),
        h(
          'tbody',
          {},
          view.scopes.map((s) =>
            h(
              'tr',
              { 'data-scope': s.resource ?? '' },
              h(
                'td',
                {},
                link(scopeName(s.resource), { class: 'memory-scope' }, () => {
                  void page.openMemory(s.resource);
                }),
                s.resource === resource && resource !== undefined ? ' (shown)' : '',
              ),
              h('td', {}, String(s.memories)),
              h('td', {}, s.workingMemory ? `version ${s.workingMemory.version}` : '-'),
            ),
          ),
        ),
      ),
      resource === undefined
        ? null
        : h(
            'p',
            {},
            `Memories of resource ${resource} · `,
            link('all of the user’s memory', { id: 'memory-all' }, () => {
              void page.openMemory();
            }),
          ),
      working.map((s) =>
        h(
          'div',
          { class: 'working-memory', 'data-scope': s.resource ?? '' },
          h(
            'h3',
            {},
            `Working memory · ${scopeName(s.resource)} · version ${s.workingMemory!.version} · ${time(s.workingMemory!.updatedAt)}`,
          ),
          h(
            'pre',
            {},
            typeof s.workingMemory!.content === 'string'
              ? s.workingMemory!.content
              : JSON.stringify(s.workingMemory!.content, null, 2),
          ),
        ),
      ),
      h(
        'h3',
        {},
        resource === undefined ? 'Memories, newest first' : `Memories of ${resource}, newest first`,
      ),
      h(
        'table',
        { class: 'memories' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Text', 'Kind', 'Scope', 'Source session', 'Time'].map((t) => h('th', {}, t)),
          ),
        ),
        rows,
      ),
      more,
    ),
  );
}

function memoryRow(page: Page, m: MemoryItem): HTMLTableRowElement {
  const source: Child =
    m.sessionId === undefined
      ? h('span', { class: 'muted' }, 'saved by the app')
      : link(m.sessionId, { class: 'memory-session', 'data-session': m.sessionId }, () => {
          void page.openSession(m.sessionId!);
        });
  return h(
    'tr',
    { class: 'memory', 'data-memory': m.id },
    h('td', { class: 'memory-text' }, m.text),
    h('td', {}, m.role ? `${m.kind} (${m.role})` : m.kind),
    h('td', {}, m.resource ?? '-'),
    h('td', {}, source),
    h('td', {}, time(m.at)),
  );
}
