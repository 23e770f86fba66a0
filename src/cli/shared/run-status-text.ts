import type { SerializedError } from '../../errors/agentstate-error.js';
import type { RunStatusView } from '../../runs/run-status.js';
import { localDate, statusStyle, type Cell, type Style } from './cli-format.js';

/** A run's status in a few words: `running`, `crashed`, `interrupted (budget)`, `failed OUTPUT_VALIDATION`. */
export function runStatusText(run: RunStatusView): string {
  const reason = run.status === 'interrupted' && run.interruption ? ` (${run.interruption})` : '';
  const failed = run.status === 'failed' || run.interruption === 'error';
  return `${run.status}${reason}${failed && run.error ? ` ${run.error.code}` : ''}`;
}

/** The same as a table cell, painted (a crashed run in red); empty without a run. */
export function runStatusCell(run: RunStatusView | undefined): Cell {
  if (!run) return '';
  return { text: runStatusText(run), style: runStyle(run) };
}

export function runStyle(run: RunStatusView): Style | undefined {
  return run.status === 'crashed' ? 'red' : statusStyle(run.status);
}

/** A typed error on one line: `Name: message [CODE]`. */
export function errorLine(error: SerializedError): string {
  return `${error.name}: ${error.message} [${error.code}]`;
}

/** What a crashed run needs, said where it shows. */
export const CRASHED_HINT =
  "its process stopped with steps in flight: `agentstate resume` (or the app's recover()) goes on";

/**
 * What a run waits on in a few words: `2 approvals, first by <date>`, `1 in doubt` (calls cut
 * off by a crash, for an operator), `waiting for resume` (calls decided without the app, which
 * its resume runs); empty for none.
 */
export function waitingText(
  pending: number,
  deadline: number | undefined,
  inDoubt = 0,
  held = false,
): string {
  const calls = `${pending} approval${pending === 1 ? '' : 's'}`;
  return [
    pending === 0 ? '' : deadline === undefined ? calls : `${calls}, by ${localDate(deadline)}`,
    inDoubt === 0 ? '' : `${inDoubt} in doubt`,
    held ? 'waiting for resume' : '',
  ]
    .filter(Boolean)
    .join(', ');
}
