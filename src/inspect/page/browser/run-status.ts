import type { RunStatus, SessionSummary, Usage } from './api-types.js';
import { h } from './dom.js';

/** What the run does (running, crashed, paused and why) or how it ended, with its error's code. */
export function runBadge(rs: RunStatus | undefined): HTMLSpanElement | null {
  if (!rs) return null;
  const bad = rs.status === 'crashed' || rs.status === 'failed';
  return h(
    'span',
    { class: `badge run-status${bad ? ' error' : ''}`, 'data-run-status': rs.status },
    `run ${rs.status}` +
      (rs.status === 'interrupted' && rs.interruption ? ` (${rs.interruption})` : '') +
      (rs.error ? ` ${rs.error.code}` : ''),
  );
}

/** Why the run stopped: its typed error; a crashed run's way on. */
export function runReason(rs: RunStatus | undefined): HTMLDivElement | null {
  if (!rs) return null;
  return h(
    'div',
    { id: 'run-reason' },
    rs.status === 'crashed'
      ? h(
          'div',
          { class: 'error-box' },
          'its process stopped with steps in flight: Resume goes on from the last stored step',
        )
      : null,
    rs.error
      ? h('div', { class: 'error-box' }, `${rs.error.name}: ${rs.error.message} [${rs.error.code}]`)
      : null,
  );
}

/** The session's usage with what its run in progress used so far. */
export function soFar(s: SessionSummary): Usage {
  return s.usageSoFar || s.usage;
}
