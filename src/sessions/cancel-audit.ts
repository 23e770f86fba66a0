import type { AuditTrail } from '../audit/audit-trail.js';
import { cancelRequestOf } from '../persistence/run-cancels.js';
import type { SessionHost } from '../session-host/session-host.js';

/**
 * Audits the cancel of a run executing now (`agent.cancel`, from this process or another) when
 * it aborts the action's signal: who cancelled and how the request arrived, in the save that
 * ends the run. Returns the function that stops listening.
 */
export function auditCancels(
  signal: AbortSignal | undefined,
  host: SessionHost,
  audit: AuditTrail,
): () => void {
  if (!signal || signal.aborted) return () => undefined;
  const onAbort = (): void => {
    const request = cancelRequestOf(signal.reason);
    if (!request) return; // the caller's own signal: not a cancel from anywhere
    const { by, delivery } = request;
    const runId = host.runSnapshot()?.context?.runId;
    const from = delivery === 'process' ? 'in this process' : `through the inbox (${delivery})`;
    host.log.audit([
      audit.entry({
        kind: 'session',
        action: 'cancelRun',
        runId,
        summary: `run cancelled${by === undefined ? '' : ` by ${by}`} ${from}`,
        ...(by === undefined ? {} : { by }),
        via: 'api',
      }),
    ]);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
