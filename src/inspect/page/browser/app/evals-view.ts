import type {
  EvalReportView,
  EvalRowView,
  EvalRunList,
  EvalRunSummary,
} from '../eval-api-types.js';
import { append, byId, clear, h } from '../dom.js';
import { api } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { resetFeed } from './live-feed.js';

/** Clears what the detail pane showed (a session, a workflow) before an eval view. */
function leaveDetail(page: Page): void {
  const { state } = page;
  state.selected = null;
  state.detail = null;
  state.workflowId = null;
  state.workflow = null;
  resetFeed(page);
}

/**
 * Opens the eval runs the store holds for the page's user in the detail pane: each with its
 * agent, label, dataset and rows done; a click shows its report. An answer asked before the
 * last one asked is dropped.
 */
export async function openEvals(page: Page): Promise<void> {
  const { state } = page;
  leaveDetail(page);
  const asked = ++state.asked;
  try {
    const list = await api<EvalRunList>(state.user, '/api/evals');
    if (asked !== state.asked) return;
    append(
      clear(byId('detail')),
      h(
        'div',
        { id: 'evals-view' },
        h('h2', {}, 'Eval runs'),
        list.evals.length
          ? h(
              'table',
              { class: 'evals', 'aria-label': 'eval runs' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ...['Eval', 'Agent', 'Label', 'Dataset', 'Rows'].map((t) =>
                    h('th', { scope: 'col' }, t),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                list.evals.map((e) => evalRow(page, e)),
              ),
            )
          : h(
              'p',
              { class: 'muted hint', id: 'evals-empty' },
              'No eval runs yet: run one with runEval(...) or `agentstate eval run`.',
            ),
      ),
    );
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

function evalRow(page: Page, e: EvalRunSummary): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-eval': e.evalId },
    h(
      'td',
      {},
      h(
        'a',
        {
          href: `#eval=${encodeURIComponent(e.evalId)}`,
          class: 'eval-link',
          onclick: (ev) => {
            ev.preventDefault();
            void openEval(page, e.evalId);
          },
        },
        e.evalId,
      ),
    ),
    h('td', {}, e.agent),
    h('td', {}, e.label ?? ''),
    h('td', {}, e.dataset.name),
    h(
      'td',
      {},
      `${e.passed} passed of ${e.done}/${e.dataset.rows}${e.status === 'completed' ? '' : ` (${e.status})`}`,
    ),
  );
}

/** Opens one eval run's report: its summary, the mean score by scorer, and each row's scores. */
export async function openEval(page: Page, id: string): Promise<void> {
  const { state } = page;
  leaveDetail(page);
  const asked = ++state.asked;
  try {
    const report = await api<EvalReportView>(state.user, `/api/evals/${encodeURIComponent(id)}`);
    if (asked !== state.asked) return;
    renderReport(page, report);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

function renderReport(page: Page, report: EvalReportView): void {
  const scorers = Object.keys(report.summary.scores);
  const { summary } = report;
  append(
    clear(byId('detail')),
    h(
      'div',
      { id: 'eval-report', 'data-eval': report.evalId },
      h(
        'p',
        {},
        h(
          'a',
          {
            href: '#evals',
            id: 'evals-back',
            onclick: (e) => {
              e.preventDefault();
              void openEvals(page);
            },
          },
          '← eval runs',
        ),
      ),
      h('h2', {}, `Eval ${report.evalId}${report.label ? ` · ${report.label}` : ''}`),
      h(
        'p',
        { id: 'eval-summary' },
        `agent ${report.agent} · dataset ${report.dataset.name} (${report.dataset.rows} rows) · ${summary.passed} passed, ${summary.failed} failed, ${summary.errored} errored · median ${Math.round(summary.latencyMs.median)} ms`,
      ),
      h(
        'ul',
        { id: 'eval-scorers', class: 'muted' },
        scorers.map((name) =>
          h(
            'li',
            {},
            `${name}: mean ${summary.scores[name]!.mean.toFixed(2)}, ${summary.scores[name]!.passed} passed`,
          ),
        ),
      ),
      h(
        'table',
        { class: 'eval-rows', 'aria-label': 'eval rows' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Row', 'Kind', 'Result', ...scorers, 'Latency', 'Definition'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          report.rows.map((row) => rowLine(row, scorers)),
        ),
      ),
    ),
  );
}

/** One row: pass or fail (or the error), each scorer's score with its reason as the title. */
function rowLine(row: EvalRowView, scorers: string[]): HTMLTableRowElement {
  const result =
    row.status === 'error'
      ? `error${row.error?.code ? ` ${row.error.code}` : ''}`
      : row.pass
        ? 'pass'
        : 'fail';
  return h(
    'tr',
    { 'data-row': row.rowId, 'data-pass': String(row.pass) },
    h('td', {}, row.rowId),
    h('td', {}, row.kind),
    h(
      'td',
      { title: row.error?.message ?? '' },
      h('span', { class: `badge${row.pass ? '' : ' error'}` }, result),
    ),
    ...scorers.map((name) => {
      const score = row.scores[name];
      return h(
        'td',
        { title: score?.reason ?? '', 'data-scorer': name },
        score ? `${score.score.toFixed(2)}${score.pass ? '' : ' ✗'}` : '–',
      );
    }),
    h('td', {}, `${Math.round(row.latencyMs)} ms`),
    h(
      'td',
      { class: 'muted' },
      row.definitionChanges.length ? `changed: ${row.definitionChanges.join(', ')}` : 'same',
    ),
  );
}
