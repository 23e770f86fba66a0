import { canWatchSessions } from '../persistence/store-supports.js';
import { checkRunOptions } from '../actions/run-call-checks.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { Clock } from '../core/clock.js';
import {
  attachEventId,
  isBefore,
  parseAttachEventId,
  type AttachCursor,
  type AttachEvent,
} from '../runs/attach-events.js';
import { readJournal, runEnded, type AttachPosition } from '../runs/attach-position.js';
import { followStoredRun } from '../runs/stored-run-follow.js';
import type { RunStatusView } from '../runs/run-status.js';
import { describeSession } from '../runs/session-view.js';
import { cacheKey } from '../session-host/session-cache.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { checkId } from './agent-call-checks.js';

/** Options of `agent.attach`. */
export interface AttachOptions {
  /** The session's user (the partition): another user's session is not found. */
  userId?: string | undefined;
  /** The id of the last event the reader has: it gets the events after it. Omitted: all. */
  after?: string | undefined;
  /** @default the agent's store, else the default one */
  store?: SessionStore | undefined;
}

const ATTACH_OPTION_NAMES = optionNames<AttachOptions>({ userId: true, after: true, store: true });

/**
 * Checks `agent.attach`'s arguments: a `TypeError` for an empty session id, an unknown option,
 * or an `after` that is not an event id of `agent.attach`. Returns the `after` cursor.
 */
export function checkAttachCall(
  sessionId: unknown,
  options: AttachOptions,
): AttachCursor | undefined {
  const call = 'agent.attach()';
  checkId(call, 'session id', sessionId);
  checkRunOptions(call, options, ATTACH_OPTION_NAMES);
  new OptionChecker(call, options, ATTACH_OPTION_NAMES).check(
    'after',
    'an event id of agent.attach (`${runId}:${step}:${n}`)',
    (v) => typeof v === 'string' && parseAttachEventId(v) !== undefined,
  );
  return options.after === undefined ? undefined : parseAttachEventId(options.after);
}

/** What the runtime tells an attached reader, in order. */
type Signal =
  | { kind: 'saved'; record: SessionRecord }
  | { kind: 'delta'; runId: string; step: number; from: number; delta: string }
  | { kind: 'settled' };

/**
 * The events of the session's current (else last) run from `after`: its journaled steps read
 * from the store, then, while this process executes the run, its text deltas as they stream
 * and each step as it is journaled, until the run ends or pauses (`run_ended`). A model call's
 * text streams as deltas only to a reader that was there from its first delta (or resumes
 * exactly where it was in it); otherwise the reader gets the text whole once the step is
 * journaled. A run another runtime executes (another process on PostgreSQL) is followed
 * through the store's saves when the store can watch them (`watchSession`), each step whole
 * once journaled; else it is read once, as it stands. Throws `SessionNotFoundError` for a
 * missing session, another user's included.
 */
export async function* attachRun(
  runtime: SessionRuntime,
  store: SessionStore,
  executing: ReadonlySet<string>,
  key: SessionKey,
  after: AttachCursor | undefined,
  clock: Clock,
): AsyncGenerator<AttachEvent, void, undefined> {
  // What the runtime said, in order, and the reader waiting for more.
  const signals: Signal[] = [];
  let wake: (() => void) | undefined;
  const mine = (k: SessionKey) => k.sessionId === key.sessionId && k.userId === key.userId;
  const push = (signal: Signal) => {
    signals.push(signal);
    wake?.();
  };
  const stops = [
    runtime.on('SessionSaved', (e) => mine(e.key) && push({ kind: 'saved', record: e.record })),
    runtime.on('RunTextDelta', (e) => mine(e.key) && push({ kind: 'delta', ...e })),
    runtime.on('SessionActionExecuted', (e) => mine(e.key) && push({ kind: 'settled' })),
    runtime.on('SessionSaveFailed', (e) => mine(e.key) && push({ kind: 'settled' })),
  ];
  try {
    const view = await runtime.getSession(key);
    let status = view.runStatus;
    if (!status) return;
    const runId = status.runId;
    const position: AttachPosition = {
      cursor: after?.runId === runId ? after : { runId, step: -1, n: Infinity },
      journaled: -1,
      turn: 0,
    };
    const live = () => status?.status === 'running' && executing.has(cacheKey(key));
    if (status.status === 'running' && !live() && canWatchSessions(store)) {
      // Another runtime executes it: followed through the store's saves.
      const source = { store, key, clock, view: () => runtime.getSession(key) };
      status = (yield* followStoredRun(source, position)) ?? status;
      yield* runEnded(status, position);
      return;
    }
    // A run that does not execute here is read once, as it stands.
    let settled = !live();
    yield* readJournal(store, key, position, settled);
    // Everything said while the run executes here, also what was said before it stopped.
    for (;;) {
      const signal = signals.shift();
      if (!signal) {
        if (!live()) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      if (signal.kind === 'delta') {
        if (signal.runId === runId) yield* deltaEvents(position, signal);
        continue;
      }
      settled = false;
      if (signal.kind === 'saved') status = statusOf(signal.record, runId) ?? status;
      else status = (await runtime.getSession(key)).runStatus ?? status;
      yield* readJournal(store, key, position);
    }
    if (status.status === 'running' && !settled) {
      // It stopped here without a save saying how, or it executes elsewhere: what is stored.
      const stored = (await runtime.getSession(key)).runStatus;
      if (stored?.runId === runId) status = stored;
    }
    // The run stopped: the results it has, also those of calls after one it never answered.
    if (!settled) yield* readJournal(store, key, position, true);
    yield* runEnded(status, position);
  } finally {
    for (const stop of stops) stop();
  }
}

/** The run's status in a saved record, if the record still holds that run. */
function statusOf(record: SessionRecord, runId: string): RunStatusView | undefined {
  const status = describeSession(record).runStatus;
  return status?.runId === runId ? status : undefined;
}

/**
 * A live text delta as events, when it continues what the reader has: the next step's first
 * delta (after every earlier step was read from the journal), or the part of a delta past the
 * reader's place in the step's text. Anything else waits for the step's journal entry.
 */
function* deltaEvents(
  position: AttachPosition,
  delta: { runId: string; step: number; from: number; delta: string },
): Generator<AttachEvent, void, undefined> {
  const { runId, step, from } = delta;
  const end = from + delta.delta.length;
  const { cursor } = position;
  if (step <= position.journaled || !isBefore(cursor, { step, n: end })) return;
  if (cursor.step === step && cursor.n >= from) {
    const text = delta.delta.slice(cursor.n - from);
    position.cursor = { runId, step, n: end };
    yield { type: 'text', step, text, runId, id: attachEventId(position.cursor) };
    return;
  }
  if (from !== 0 || position.journaled !== step - 1 || cursor.step >= step) return;
  position.turn = step;
  yield { type: 'step_started', step, runId, id: attachEventId({ runId, step, n: 0 }) };
  position.cursor = { runId, step, n: end };
  yield { type: 'text', step, text: delta.delta, runId, id: attachEventId(position.cursor) };
}
