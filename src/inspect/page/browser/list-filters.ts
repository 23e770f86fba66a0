import { h } from './dom.js';
import type { Page } from './page.js';

/** The list's filters besides the session status: the run's status, the agent, a text, the order. */
export interface ListFilters {
  /** `waiting`, `running`, `crashed`, `interrupted`, `completed`, `failed`, `cancelled`, `none`. */
  run: string;
  agent: string;
  text: string;
  /** `id`, `updated`, `created`, `usage`. */
  sort: string;
}

/**
 * The run filter's choices, in the server's words (`inspect/list-query.ts`), with the
 * page's labels.
 */
const RUNS: [string, string][] = [
  ['', 'any run'],
  ['waiting', 'waiting for a decision'],
  ['running', 'running'],
  ['crashed', 'crashed'],
  ['interrupted', 'paused'],
  ['failed', 'failed'],
  ['completed', 'completed'],
  ['cancelled', 'cancelled'],
  ['none', 'no run yet'],
];

const SORTS: [string, string][] = [
  ['id', 'by id'],
  ['updated', 'last updated'],
  ['created', 'newest'],
  ['usage', 'most tokens'],
];

/** The query of the list's page: filters, order and the page's cursor (`limit` from the page). */
export function listQueryOf(page: Page, limit: number): string {
  const { state } = page;
  const q = new URLSearchParams({ limit: String(limit) });
  if (state.status) q.set('status', state.status);
  const f = state.list;
  if (f.run) q.set('run', f.run);
  if (f.agent) q.set('agent', f.agent);
  if (f.text) q.set('text', f.text);
  if (f.sort !== 'id') q.set('sort', f.sort);
  if (state.pageCursor) q.set('cursor', state.pageCursor);
  return `/api/sessions?${q.toString()}`;
}

/**
 * The list's filter bar: run status, agent (the inspector's agents offered), a text to find
 * (in ids, agents and errors) and the order. A change reads the list again from its first page.
 */
export function renderListFilters(page: Page): HTMLFormElement {
  const { state, info } = page;
  const f = state.list;
  const apply = () => {
    state.pages = [];
    state.pageCursor = null;
    void page.loadSessions();
  };
  const select = (id: string, label: string, options: [string, string][], key: 'run' | 'sort') =>
    h(
      'select',
      {
        id,
        'aria-label': label,
        onchange: (e) => {
          f[key] = (e.target as HTMLSelectElement).value;
          apply();
        },
      },
      options.map(([value, text]) => h('option', { value, selected: value === f[key] }, text)),
    );
  const agents = h(
    'datalist',
    { id: 'agent-names' },
    info.agents.map((a) => h('option', { value: a })),
  );
  const agent = h('input', {
    id: 'agent-filter',
    'aria-label': 'agent',
    placeholder: 'agent',
    list: 'agent-names',
    size: 8,
    value: f.agent,
    onchange: () => {
      f.agent = agent.value.trim();
      apply();
    },
  });
  const text = h('input', {
    id: 'text-filter',
    type: 'search',
    'aria-label': 'find in ids, agents and errors',
    placeholder: 'find',
    size: 10,
    value: f.text,
    onchange: () => {
      f.text = text.value.trim();
      apply();
    },
  });
  return h(
    'form',
    {
      class: 'list-filters',
      role: 'search',
      'aria-label': 'filter the sessions',
      onsubmit: (e) => e.preventDefault(),
    },
    select('run-filter', 'run status', RUNS, 'run'),
    agent,
    agents,
    text,
    select('sort', 'order', SORTS, 'sort'),
  );
}
