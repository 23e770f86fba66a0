import type { ActionResult } from './api-types.js';
import type { Page } from './page.js';
import { fail } from './page-error.js';

/**
 * Waits for an action on the open session, shows its result, then reads the session and the
 * list again (what the action changed); an error goes to the error box.
 */
export async function afterAction(
  page: Page,
  action: Promise<ActionResult>,
  what?: string,
): Promise<void> {
  try {
    setResult(page, await action, what);
    if (page.state.selected !== null) await page.openSession(page.state.selected);
    await page.loadSessions();
  } catch (error) {
    fail(page.state, error);
  }
}

/** Shows an action's result (and keeps it for the next render of the session). */
export function setResult(page: Page, result: ActionResult, what?: string): void {
  page.state.result = describeResult(result, what);
  const el = document.getElementById('action-result');
  if (el) el.textContent = page.state.result;
}

/** An action's answer in words: a recorded decision, a run's outcome, a fork. */
function describeResult(r: ActionResult | null, what: string | undefined): string {
  if (!r) return '';
  if (r.recorded) return `${what || r.callId} ${r.decision ?? r.action} · ${r.note}`;
  if (typeof r.interrupted === 'boolean') {
    if (r.interrupted)
      return `run ${r.runId} paused again (${r.interruptionReason || 'interrupted'})`;
    const output =
      r.output === undefined
        ? ''
        : `: ${typeof r.output === 'string' ? r.output : JSON.stringify(r.output)}`;
    return `run ${r.runId} completed${output}`;
  }
  const by = r.by ? ` by ${r.by}` : '';
  if (r.requested)
    return `cancel requested${by}: ${r.note || 'the process executing the run stops it'}`;
  if (r.cancelled) return `run cancelled${by}`;
  if (r.parentId) {
    return `forked ${r.parentId} at history position ${r.historyLength} into ${r.sessionId}`;
  }
  return JSON.stringify(r);
}
