import { append, clear, h } from '../dom.js';
import type { FeedEntry } from '../feed-entry.js';
import type { Page } from '../page.js';

/**
 * The open session's live feed, oldest first: each line a button that shows its step in the
 * session view (its run opened first). A hint while there is nothing to show.
 */
export function renderFeed(page: Page): void {
  const pane = document.getElementById('feed-pane');
  if (!pane) return;
  const { state } = page;
  clear(pane);
  append(pane, h('h2', { id: 'feed-title' }, 'Live'));
  const list = h(
    'ol',
    { id: 'live-log', class: 'feed', 'aria-labelledby': 'feed-title', 'aria-live': 'polite' },
    state.feed.map((e) => line(page, e)),
  );
  append(pane, list);
  if (!state.feed.length) {
    append(
      pane,
      h(
        'p',
        { class: 'muted hint', id: 'feed-empty' },
        state.selected === null
          ? 'Open a session to follow its runs here as they run.'
          : 'Nothing ran since the session was opened: its steps appear here as they run.',
      ),
    );
  }
}

/** Adds a line to the shown feed (or draws the feed when it was empty). */
export function appendFeed(page: Page, entry: FeedEntry): void {
  const list = document.getElementById('live-log');
  if (!list || document.getElementById('feed-empty')) {
    renderFeed(page);
    return;
  }
  append(list, line(page, entry));
  while (list.childNodes.length > page.state.feed.length && list.firstChild) {
    list.removeChild(list.firstChild);
  }
}

function line(page: Page, e: FeedEntry): HTMLLIElement {
  return h(
    'li',
    {},
    h(
      'button',
      {
        type: 'button',
        class: 'feed-line',
        'data-run': e.runId,
        'data-step': e.step,
        title: e.step === undefined ? 'show this run' : `show step #${e.step}`,
        onclick: () => void goToStep(page, e),
      },
      e.text,
    ),
  );
}

/** Shows the line's run (a session's run, or the run whose tree holds it) and its step. */
async function goToStep(page: Page, e: FeedEntry): Promise<void> {
  const { state } = page;
  const runs = state.detail?.runs ?? [];
  if (e.runId && runs.some((r) => r.runId === e.runId) && state.runId !== e.runId) {
    await page.openRun(e.runId);
  } else if (e.runId && !document.querySelector(`[data-run="${CSS.escape(e.runId)}"]`)) {
    if (state.selected !== null) await page.openSession(state.selected);
  }
  state.stepTarget = e;
  if (!state.targetWatch) {
    // A live refresh draws the session anew: the step shown stays marked (and focused).
    const watch = new MutationObserver(() => markTarget(page, false));
    watch.observe(document.getElementById('detail') ?? document.body, { childList: true });
    state.targetWatch = watch;
  }
  markTarget(page, true);
}

/** Marks the step the user went to (and, the first time or once its focus was lost, focuses it). */
function markTarget(page: Page, scroll: boolean): void {
  const e = page.state.stepTarget;
  if (!e) return;
  const target = stepElement(e) ?? runElement(e);
  if (!target || target.classList.contains('step-target')) return;
  document.querySelectorAll('.step-target').forEach((el) => el.classList.remove('step-target'));
  target.classList.add('step-target');
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  if (scroll) target.scrollIntoView({ block: 'center' });
  if (scroll || document.activeElement === document.body) target.focus({ preventScroll: !scroll });
}

/** The step's element in the run view: under the run's own node, not a nested run's. */
function stepElement(e: FeedEntry): HTMLElement | null {
  if (e.runId === undefined || e.step === undefined) return null;
  const run = CSS.escape(e.runId);
  const candidates = document.querySelectorAll<HTMLElement>(
    `#detail [data-run="${run}"] [data-step="${e.step}"]`,
  );
  for (const el of candidates) {
    if (el.closest('[data-run]:not(button)')?.getAttribute('data-run') === e.runId) return el;
  }
  return null;
}

function runElement(e: FeedEntry): HTMLElement | null {
  if (e.runId === undefined) return null;
  return document.querySelector<HTMLElement>(
    `#detail .run-node[data-run="${CSS.escape(e.runId)}"]`,
  );
}
