import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import {
  attachEventId,
  isBefore,
  journalEvents,
  PAUSE_N,
  type AttachCursor,
  type AttachEvent,
} from './attach-events.js';
import { runStatusOf, type RunStatusView } from './run-status.js';
import type { SessionView } from './session-view.js';

/** Where an attached reader is: the last event it got, and the journal steps it read. */
export interface AttachPosition {
  cursor: AttachCursor;
  /** The highest journal step read; -1 none. */
  journaled: number;
}

/**
 * The run's journaled steps the reader has not had, read from the store. `final`: the run
 * stopped, so a result waits for no earlier one (see `journalEvents`).
 */
export async function* readJournal(
  store: SessionStore,
  key: SessionKey,
  position: AttachPosition,
  final = false,
): AsyncGenerator<AttachEvent, void, undefined> {
  const { runId } = position.cursor;
  const entries = await store.readRunJournal(key, runId);
  for (const entry of entries) position.journaled = Math.max(position.journaled, entry.step);
  for (const event of journalEvents(runId, entries, position.cursor, final)) {
    const cursor = cursorOf(event);
    if (!isBefore(position.cursor, cursor)) continue;
    position.cursor = cursor;
    yield event;
  }
}

/** The position of an event, from its id. */
export function cursorOf(event: AttachEvent): AttachCursor {
  const parts = event.id.slice(event.runId.length + 1).split(':');
  const n = parts[1] === 'end' ? Infinity : Number(parts[1]);
  return { runId: event.runId, step: Number(parts[0]), n };
}

/** The status of run `runId` in a session's view: its current run, else its last one. */
export function runStatusIn(view: SessionView, runId: string): RunStatusView | undefined {
  if (view.runStatus?.runId === runId) return view.runStatus;
  return view.lastRun?.runId === runId
    ? runStatusOf(undefined, view.lastRun, 'unknown')
    : undefined;
}

/**
 * The `run_ended` event of a run that stopped with `status` (a run still `running` here
 * stopped without saying how: `crashed`), unless the reader had it already. A pause for
 * approvals ends at its approval step, before the results that follow it.
 */
export function runEnded(status: RunStatusView, position: AttachPosition): AttachEvent | undefined {
  const { runId } = position.cursor;
  const stopped = status.status === 'running' ? 'crashed' : status.status;
  const n = stopped === 'awaitingApproval' ? PAUSE_N : Infinity;
  const end = { runId, step: Math.max(position.journaled, 0), n };
  if (!isBefore(position.cursor, end)) return undefined;
  const { interruption, error } = status;
  return {
    type: 'run_ended',
    status: stopped,
    ...(interruption === undefined ? {} : { interruption }),
    ...(error === undefined ? {} : { error }),
    runId,
    id: attachEventId(end),
  };
}
