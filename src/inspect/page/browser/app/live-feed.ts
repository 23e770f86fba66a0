import type { LiveFrame } from '../api-types.js';
import { feedEntryOf, withEntry } from '../feed-entry.js';
import { appendFeed, renderFeed } from './feed-view.js';
import { userQuery } from '../inspector-api.js';
import type { Page } from '../page.js';
import { highlight } from '../charts/state-chart.js';

/** How long the page waits for frames to pause before it reads the list or the session again. */
const SETTLE_MS = 150;

/**
 * How often the page reads the list again without a frame: sessions another process (or an
 * agent this inspector does not watch) writes send no frame here, nor do workflow instances.
 */
const LIST_POLL_MS = 3000;

/** (Re)connects the live feed (`/api/live`, Server-Sent Events) for the page's user. */
export function startLive(page: Page): void {
  const { state } = page;
  if (state.live) state.live.close();
  const q = userQuery(state.user);
  const live = new EventSource(`/api/live${q ? `?${q}` : ''}`);
  live.onmessage = (message: MessageEvent<string>) =>
    onFrame(page, JSON.parse(message.data) as LiveFrame);
  state.live = live;
  if (state.listPoll) clearInterval(state.listPoll);
  state.listPoll = setInterval(() => {
    if (document.visibilityState !== 'visible') return;
    void page.loadSessions();
    // Workflow instances send no frame: their list and the open one are read again.
    if (page.info.workflows.length) void page.loadWorkflows();
    if (state.workflowId !== null) void page.openWorkflow(state.workflowId);
  }, LIST_POLL_MS);
}

/**
 * A frame: the list is read again once the frames pause (a new session appears, a status
 * changes); for the open session, a line in its feed, the charts' highlight follows its
 * machines at once and the session is read again once the frames pause.
 */
function onFrame(page: Page, frame: LiveFrame): void {
  const { state } = page;
  if (state.listTimer) clearTimeout(state.listTimer);
  state.listTimer = setTimeout(() => {
    state.listTimer = null;
    void page.loadSessions();
  }, SETTLE_MS);
  if (frame.sessionId !== state.selected) return;
  const entry = feedEntryOf(frame, state.feed);
  if (entry) {
    state.feed = withEntry(state.feed, entry);
    appendFeed(page, entry);
  }
  if (!state.detail || frame.sessionId !== state.detail.session.sessionId) return;
  if (frame.type !== '@xstate.snapshot') return;
  if (frame.src === 'session' && frame.state) highlight('session', frame.state);
  if (
    (frame.src === 'run' || frame.src === 'subRun') &&
    frame.state &&
    frame.runId === state.runId
  ) {
    highlight('run', frame.state);
    const label = document.getElementById('run-state');
    if (label) label.textContent = frame.state;
  }
  if (state.refreshTimer) clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(() => {
    state.refreshTimer = null;
    if (state.selected !== null) void page.openSession(state.selected);
  }, SETTLE_MS);
}

/** Empties the feed for a session just opened (it shows what runs from now on) and draws it. */
export function resetFeed(page: Page): void {
  page.state.feed = [];
  page.state.stepTarget = null;
  renderFeed(page);
}
