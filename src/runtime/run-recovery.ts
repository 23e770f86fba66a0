import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { hasLeases } from '../persistence/session-store.js';
import { continueRun } from './actions/continue-run.js';
import type { Clock } from './clock.js';
import type { RecoverOptions, RecoveredRun } from './recover-options.js';
import type { RunResult } from './run-result.js';
import type { SessionAction } from './session-action.js';
import { storedRunInFlight } from './session-view.js';
import { storedRun } from './stored-run.js';
import type { RunLike } from './run-activity.js';

/** What recovery needs of the runtime that does it. */
export interface RecoveryRuntime {
  store: SessionStore;
  clock: Clock;
  /** The runtime's scope: recovery sees only that session. */
  scope: SessionKey | undefined;
  /** The runtime's agent: runs of other agents are theirs to recover. */
  agentName: string;
  load(key: SessionKey): Promise<SessionRecord>;
  execute(key: SessionKey, action: SessionAction<RunResult>): Promise<RunResult>;
}

/**
 * Resumes the runs whose owner died: sessions of one user (the runtime's scope, if it has
 * one) whose lease expired at least `olderThan` ms ago without being released and whose
 * stored run is still in flight. Each is resumed like `continueRun()` under the runtime's
 * lease; one failing (or taken by another process first) does not stop the others. A run
 * another agent runs is left alone, for that agent's recovery.
 */
export async function recoverRuns(
  runtime: RecoveryRuntime,
  options: RecoverOptions,
): Promise<RecoveredRun[]> {
  const { store, clock, scope } = runtime;
  if (!hasLeases(store)) {
    throw new TypeError('runtime.recover(): the store keeps no session leases');
  }
  if (scope && options.userId !== undefined && options.userId !== scope.userId) return [];
  const expired = await store.expiredLeases({
    userId: scope ? scope.userId : options.userId,
    expiredBefore: clock.now() - options.olderThan,
    limit: options.limit,
  });
  const recovered: RecoveredRun[] = [];
  for (const key of expired) {
    if (scope && key.sessionId !== scope.sessionId) continue;
    try {
      const record = await runtime.load(key);
      if (!storedRunInFlight(record, clock.now())) continue;
      // Another agent's run: only that agent has its tools (its own recover continues it).
      if (storedRun<RunLike>(record.snapshot)?.context?.agentName !== runtime.agentName) continue;
      const result = await runtime.execute(key, continueRun({ signal: options.signal }));
      recovered.push({ key, result });
    } catch (error) {
      recovered.push({ key, error });
    }
  }
  return recovered;
}
