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
  /**
   * The model call step of the last `step_started` the reader got (0 before any). Every event
   * of an earlier turn comes before it (a turn's results are keyed under its own model call or
   * approval check), so the reader is past them all: the journal is read from this step on.
   */
  turn: number;
}

/**
 * The run's journaled steps the reader has not had, read from the store from the reader's
 * turn on. `final`: the run stopped, so a result waits for no earlier one (`journalEvents`).
 */
export async function* readJournal(
  store: SessionStore,
  key: SessionKey,
  position: AttachPosition,
  final = false,
): AsyncGenerator<AttachEvent, void, undefined> {
  const { runId } = position.cursor;
  const from = position.turn;
  // A store may give earlier steps too (one that ignores `from`): those are left out here.
  const entries = (await store.readRunJournal(key, runId, from)).filter((e) => e.step >= from);
  for (const entry of entries) position.journaled = Math.max(position.journaled, entry.step);
  for (const event of journalEvents(runId, entries, position.cursor, final)) {
    const cursor = cursorOf(event);
    if (!isBefore(position.cursor, cursor)) continue;
    position.cursor = cursor;
    if (event.type === 'step_started') position.turn = event.step;
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
 * approvals ends at its approval step, before the results that follow it; the approvals its
 * sub-agent runs wait for (journaled apart, in their own runs) come just before it, each with
 * its agent path and run.
 */
export function runEnded(status: RunStatusView, position: AttachPosition): AttachEvent[] {
  const { runId } = position.cursor;
  const stopped = status.status === 'running' ? 'crashed' : status.status;
  const n = stopped === 'awaitingApproval' ? PAUSE_N : Infinity;
  const end = { runId, step: Math.max(position.journaled, 0), n };
  const asked =
    stopped === 'awaitingApproval' ? status.interruptions.filter((i) => i.agentPath) : [];
  const { interruption, error } = status;
  const events: AttachEvent[] = asked.map((call, j) => ({
    type: 'approval_requested',
    step: end.step,
    callId: call.callId,
    name: call.toolName,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    agentPath: call.agentPath,
    subRunId: call.runId,
    runId,
    id: attachEventId({ ...end, n: PAUSE_N - asked.length + j }),
  }));
  events.push({
    type: 'run_ended',
    status: stopped,
    ...(interruption === undefined ? {} : { interruption }),
    ...(error === undefined ? {} : { error }),
    runId,
    id: attachEventId(end),
  });
  return events.filter((event) => isBefore(position.cursor, cursorOf(event)));
}
