import type { SessionEvent } from '../machines/session-types.js';
import type { SessionAction } from './session-action.js';

function lifecycle(name: string, event: SessionEvent): SessionAction {
  return {
    name,
    event,
    async apply({ host }) {
      host.send(event, name);
    },
  };
}

/** Moves a suspended (or failed) session back to active. */
export const resumeSession = (): SessionAction => lifecycle('resumeSession', { type: 'RESUME' });
/** Parks an idle session; it accepts no messages until resumed. */
export const suspendSession = (): SessionAction => lifecycle('suspendSession', { type: 'SUSPEND' });
/** Marks an idle session completed; it then only accepts deletion. */
export const completeSession = (): SessionAction =>
  lifecycle('completeSession', { type: 'COMPLETE' });
/** Marks an idle session failed; it may be resumed. */
export const failSession = (): SessionAction => lifecycle('failSession', { type: 'FAIL' });

/** Starts the model afresh: later runs read history only from this point (nothing is erased). */
export function clearSession(): SessionAction {
  return {
    name: 'clearSession',
    event: { type: 'CLEAR', historyFrom: 0 },
    async apply({ host }) {
      host.send({ type: 'CLEAR', historyFrom: host.log.length }, 'clearSession');
    },
  };
}
