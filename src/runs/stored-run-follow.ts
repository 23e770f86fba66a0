import type { Clock } from '../core/clock.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { SessionWatches } from '../persistence/session-watches.js';
import type { AttachEvent } from './attach-events.js';
import { readJournal, runStatusIn, type AttachPosition } from './attach-position.js';
import type { RunStatusView } from './run-status.js';
import type { SessionView } from './session-view.js';

/**
 * How often a reader following a run through the store reads it when the store's
 * notifications cannot be had or were lost (on the runtime's clock); each read also tries to
 * watch again.
 */
export const ATTACH_POLL_MS = 1_000;

/**
 * How often a reader reads the store while it listens, in case notifications never come (a
 * pooler that takes LISTEN and delivers nothing): a save is then seen this late, not never.
 */
export const ATTACH_LISTENING_POLL_MS = 30_000;

/** What following a stored run needs: the store, the session's view, the clock. */
export interface StoredRunSource {
  store: SessionStore & SessionWatches;
  key: SessionKey;
  /** The session as the runtime describes it (its run's status, with its owner's liveness). */
  view(): Promise<SessionView>;
  clock: Clock;
}

/**
 * Follows a run another runtime executes (another process on a shared store) through the
 * store: it watches the session's saves (`watchSession`; polling every `ATTACH_POLL_MS` while
 * it cannot, every `ATTACH_LISTENING_POLL_MS` while it can), and after each one reads the run's
 * status and the journal steps the reader has not had, until the run is no longer `running`
 * (ended, paused, or its process gone: `crashed`).
 * Text arrives whole, one step at a time, as each is journaled. Returns the status it stopped
 * with (`undefined`: the session no longer knows the run).
 */
export async function* followStoredRun(
  source: StoredRunSource,
  position: AttachPosition,
): AsyncGenerator<AttachEvent, RunStatusView | undefined, undefined> {
  const { store, key, clock } = source;
  const { runId } = position.cursor;
  let changed: boolean;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    changed = true;
    wake?.();
  };
  let stop: (() => Promise<void>) | undefined;
  const watch = async (): Promise<void> => {
    try {
      // This watch, once handed over; `lost` when it broke (also before it was handed over).
      const mine: { stop?: () => Promise<void>; lost?: boolean } = {};
      mine.stop = await store.watchSession(key, poke, () => {
        mine.lost = true;
        if (stop === mine.stop) stop = undefined;
        poke();
      });
      stop = mine.lost ? undefined : mine.stop;
    } catch {
      stop = undefined; // no notifications here: polled
    }
  };
  await watch();
  try {
    for (;;) {
      changed = false;
      let status = runStatusIn(await source.view(), runId);
      // The view reads the record, then the lease: an owner that saved its run's end and let its
      // lease go between the two reads looks crashed. Read again: the record is read after.
      if (status?.status === 'crashed') status = runStatusIn(await source.view(), runId);
      const running = status?.status === 'running';
      yield* readJournal(store, key, position, !running);
      if (!running) return status;
      if (!changed) await waitForChange(clock, stop === undefined, (w) => (wake = w));
      wake = undefined;
      if (!stop) await watch();
    }
  } finally {
    await stop?.().catch(() => undefined);
  }
}

/** Waits for a poke (`onWake` gets its resolver), or the next poll time (sooner when polling). */
async function waitForChange(
  clock: Clock,
  polling: boolean,
  onWake: (wake: () => void) => void,
): Promise<void> {
  const woken = new Promise<void>((resolve) => onWake(resolve));
  const timer = new AbortController();
  const at = clock.now() + (polling ? ATTACH_POLL_MS : ATTACH_LISTENING_POLL_MS);
  const poll = clock.sleepUntil(at, timer.signal).catch(() => undefined);
  await Promise.race([woken, poll]);
  timer.abort();
}
