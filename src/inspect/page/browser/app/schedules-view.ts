import type {
  ScheduleChange,
  SchedulePage,
  ScheduleSummary,
  TickSummary,
} from '../schedule-api-types.js';
import { append, byId, clear, h, type Child } from '../dom.js';
import { api, post } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { resetFeed } from './live-feed.js';

/**
 * Opens the user's schedules in the detail pane (in place of a session): each with its rule and
 * zone, target, next fire time in its zone, runs, and its last tick with the run it started (a
 * link to its session) and what that run is now; Pause or Resume on each; more pages on
 * request. An answer asked before the last one asked is dropped.
 */
export async function openSchedules(page: Page, note = ''): Promise<void> {
  const { state } = page;
  state.selected = null;
  state.detail = null;
  state.workflowId = null;
  state.workflow = null;
  resetFeed(page);
  const asked = ++state.asked;
  try {
    const view = await api<SchedulePage>(state.user, '/api/schedules');
    if (asked !== state.asked) return;
    renderSchedules(page, view, note);
  } catch (error) {
    if (asked === state.asked) fail(state, error);
  }
}

function renderSchedules(page: Page, view: SchedulePage, note: string): void {
  const who = view.userId === null ? 'the anonymous bucket' : `user ${view.userId}`;
  const rows = h(
    'tbody',
    {},
    view.schedules.map((s) => scheduleRow(page, s)),
  );
  const more = h('button', { id: 'schedules-more', type: 'button' }, 'Load more');
  let cursor = view.nextCursor;
  more.hidden = cursor === undefined;
  more.addEventListener('click', () => {
    more.setAttribute('disabled', '');
    api<SchedulePage>(page.state.user, `/api/schedules?cursor=${encodeURIComponent(cursor!)}`)
      .then((got) => {
        append(
          rows,
          got.schedules.map((s) => scheduleRow(page, s)),
        );
        cursor = got.nextCursor;
        more.hidden = cursor === undefined;
      })
      .catch((error: unknown) => fail(page.state, error))
      .finally(() => more.removeAttribute('disabled'));
  });
  append(
    clear(byId('detail')),
    h(
      'div',
      { id: 'schedules-view' },
      h('h2', {}, `Schedules of ${who}`),
      h('p', { id: 'schedule-result', role: 'status', class: 'muted' }, note),
      view.schedules.length
        ? h(
            'table',
            { class: 'schedules', 'aria-label': 'schedules' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ...['Schedule', 'Rule', 'Next fire', 'Runs', 'Last tick', 'Its run', 'Action'].map(
                  (t) => h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            rows,
          )
        : h(
            'p',
            { class: 'muted hint', id: 'schedules-empty' },
            'No schedules yet: an app creates them with openSchedules(store).create, an operator with `agentstate schedules add`.',
          ),
      more,
    ),
  );
}

/** A link that opens a session. */
function sessionLink(page: Page, sessionId: string, text: string): HTMLAnchorElement {
  return h(
    'a',
    {
      href: `#session=${encodeURIComponent(sessionId)}`,
      class: 'schedule-session',
      'data-session': sessionId,
      onclick: (e) => {
        e.preventDefault();
        void page.openSession(sessionId);
      },
    },
    text,
  );
}

/** The last tick: its time, its outcome (with a failure's code), how many it passed over. */
function tickCell(tick: TickSummary | null): Child {
  if (!tick) return h('span', { class: 'muted' }, 'none yet');
  return [
    h('div', {}, tick.time),
    h(
      'span',
      { class: `badge tick-outcome${tick.outcome === 'failed' ? ' error' : ''}` },
      tick.error ? `${tick.outcome} ${tick.error.code}` : tick.outcome,
    ),
    tick.missed ? h('div', { class: 'muted' }, `${tick.missed} missed before it`) : null,
  ];
}

/** The run (or instance) the last tick started, as it is now. */
function runCell(page: Page, s: ScheduleSummary): Child {
  const run = s.lastTick?.run;
  if (!run) return h('span', { class: 'muted' }, '-');
  const status = run.status === null ? 'replaced by a later run' : run.status;
  const why = [run.interruption ? `(${run.interruption})` : '', run.error?.code ?? '']
    .filter(Boolean)
    .join(' ');
  const failed = run.status === 'failed' || run.error !== undefined;
  return [
    run.kind === 'run' && s.lastTick?.sessionId
      ? sessionLink(page, s.lastTick.sessionId, run.id)
      : h('span', {}, `instance ${run.id}`),
    h(
      'div',
      {},
      h('span', { class: `badge tick-run${failed ? ' error' : ''}` }, status),
      why ? ` ${why}` : '',
    ),
  ];
}

function scheduleRow(page: Page, s: ScheduleSummary): HTMLTableRowElement {
  const verb = s.paused ? 'resume' : 'pause';
  const button = h(
    'button',
    {
      type: 'button',
      class: 'schedule-action',
      'data-action': verb,
      'aria-label': `${s.paused ? 'Resume' : 'Pause'} schedule ${s.id}`,
    },
    s.paused ? 'Resume' : 'Pause',
  );
  button.addEventListener('click', () => {
    button.setAttribute('disabled', '');
    post<ScheduleChange>(page.state.user, `/api/schedules/${encodeURIComponent(s.id)}/${verb}`, {})
      .then((done) =>
        page.openSchedules(
          done.paused
            ? `Paused ${done.id}`
            : `Resumed ${done.id}: its next tick is the first from now`,
        ),
      )
      .catch((error: unknown) => {
        button.removeAttribute('disabled');
        fail(page.state, error);
      });
  });
  const { target } = s;
  return h(
    'tr',
    { class: `schedule${s.paused ? ' paused' : ''}`, 'data-schedule': s.id },
    h(
      'td',
      {},
      h('div', { class: 'schedule-id' }, s.id),
      s.description ? h('div', { class: 'muted' }, s.description) : null,
      h(
        'div',
        { class: 'muted schedule-target' },
        target.type === 'message'
          ? ['message to ', sessionLink(page, target.id, target.id), ` (agent ${target.name})`]
          : `${target.type === 'event' ? 'event to' : 'starts'} ${target.name} ${target.id}`,
      ),
    ),
    h('td', { class: 'schedule-rule' }, s.rule),
    h(
      'td',
      { class: 'schedule-next' },
      s.paused ? h('span', { class: 'badge held' }, 'paused') : (s.next ?? 'ended'),
    ),
    h(
      'td',
      { class: 'schedule-runs' },
      s.maxRuns === null ? String(s.runs) : `${s.runs} of ${s.maxRuns}`,
      s.firing.length ? h('div', { class: 'muted' }, `${s.firing.length} firing`) : null,
    ),
    h('td', { class: 'schedule-tick' }, tickCell(s.lastTick)),
    h('td', { class: 'schedule-run' }, runCell(page, s)),
    h('td', {}, button),
  );
}
