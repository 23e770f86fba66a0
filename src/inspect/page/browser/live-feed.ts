import type { LiveFrame } from './api-types.js';
import { h } from './dom.js';
import { userQuery } from './inspector-api.js';
import type { Page } from './page.js';
import { highlight } from './state-chart.js';

/** How many frames the live log keeps. */
const LOG_LINES = 200;

/** (Re)connects the live feed (`/api/live`, Server-Sent Events) for the page's user. */
export function startLive(page: Page): void {
  const { state } = page;
  if (state.live) state.live.close();
  const q = userQuery(state.user);
  const live = new EventSource(`/api/live${q ? `?${q}` : ''}`);
  live.onmessage = (message: MessageEvent<string>) =>
    onFrame(page, JSON.parse(message.data) as LiveFrame);
  state.live = live;
}

/**
 * A frame: a line in the live log; for the open session, the charts' highlight follows its
 * machines at once and the session is read again once the frames pause.
 */
function onFrame(page: Page, frame: LiveFrame): void {
  const { state } = page;
  const log = document.getElementById('live-log');
  if (log) {
    const line = `${frame.sessionId} ${frame.src} ${frame.type.replace('@xstate.', '')} ${
      frame.eventType || frame.state || ''
    }`;
    log.insertBefore(h('div', { class: 'frame' }, line), log.firstChild);
    while (log.childNodes.length > LOG_LINES && log.lastChild) log.removeChild(log.lastChild);
  }
  if (
    !state.detail ||
    frame.sessionId !== state.detail.session.sessionId ||
    frame.type !== '@xstate.snapshot'
  ) {
    return;
  }
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
  }, 150);
}
