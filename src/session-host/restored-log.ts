import { SessionLog } from '../actors/session-log.js';
import type { Item } from '../items/item.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type {
  JournalEntry,
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { allRuns } from '../runs/run-tree.js';
import { resultsToPlace } from '../runs/stored-session-check.js';
import { storedRun } from '../runs/stored-run.js';

/**
 * The history log of a session as it is loaded: its committed items, the journal of each
 * stored run known (so a step of those runs needs no store read to find its result), and the
 * results of the stored turn's finished tool calls placed at their positions.
 */
export function restoredLog(
  store: SessionStore,
  key: SessionKey,
  record: SessionRecord,
  committedItems: Item[],
  journal: readonly JournalEntry[],
): SessionLog {
  const log = new SessionLog(store, key, committedItems);
  // The snapshot was checked on load (checkStoredSession): its run child has this shape.
  const stored = storedRun<{ context: RunMachineContext }>(record.snapshot)?.context;
  for (const run of allRuns(storedRun(record.snapshot))) {
    const runId = run.context!.runId;
    log.knowRun(
      runId,
      journal.filter((e) => e.runId === runId),
    );
  }
  if (stored) {
    for (const { position, result } of resultsToPlace(stored, journal)) {
      log.place(position, result);
    }
  }
  return log;
}
