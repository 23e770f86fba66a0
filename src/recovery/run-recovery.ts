import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { SessionLeases } from '../persistence/session-leases.js';
import { supportsCapability, hasLeases, hasMessageInbox } from '../persistence/store-supports.js';
import { sessionPart } from '../persistence/session-keys.js';
import { continueRun } from '../actions/continue-run.js';
import type { Clock } from '../core/clock.js';
import type { RecoverOptions, RecoveredRun } from './recover-options.js';
import type { RunResult } from '../session-host/run-result.js';
import type { SessionAction } from '../actions/session-action.js';
import { storedRunInFlight } from '../runs/session-view.js';
import { storedRun } from '../runs/stored-run.js';
import type { RunLike } from '../runs/run-activity.js';

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
  /** Answers the session's queued messages, in order, each once (never rejects). */
  drainInbox(key: SessionKey): Promise<void>;
}

/** How many sessions one `recover` call resumes at most, unless told. */
const DEFAULT_LIMIT = 100;
/** Sessions read per listing page when looking for runs an earlier process left. */
const PAGE = 200;

/**
 * Resumes the runs whose owner died: sessions of one user (the runtime's scope, if it has
 * one) whose lease expired at least `olderThan` ms ago without being released and whose
 * stored run is still in flight. A store whose leases live in this process (LevelDB, memory)
 * forgets them with the process, so there the sessions no lease of this process covers whose
 * stored run is in flight count too: the process that left them held the store and is gone.
 * Each is resumed like `continueRun()` under the runtime's lease; one failing (or taken by
 * another process first) does not stop the others. A run another agent runs is left alone,
 * for that agent's recovery. Then the messages no run took (see {@link answerStranded}).
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
  const userId = scope ? scope.userId : options.userId;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const recovered: RecoveredRun[] = [];
  const expired = await store.expiredLeases({
    userId,
    expiredBefore: clock.now() - options.olderThan,
    limit,
  });
  const tried = new Set<string>();
  for await (const key of candidates(expired, leftByEarlierProcess(store, userId))) {
    if (recovered.length >= limit) break;
    if (scope && key.sessionId !== scope.sessionId) continue;
    try {
      if (await isWorkflowInstance(store, key)) continue;
      const record = await runtime.load(key);
      if (!storedRunInFlight(record, clock.now())) continue;
      // Another agent's run: only that agent has its tools (its own recover continues it).
      if (storedRun<RunLike>(record.snapshot)?.context?.agentName !== runtime.agentName) continue;
      tried.add(sessionPart(key));
      const result = await runtime.execute(key, continueRun({ signal: options.signal }));
      recovered.push({ key, result });
    } catch (error) {
      recovered.push({ key, error });
    }
  }
  await answerStranded(runtime, { ...options, userId, limit }, tried, recovered);
  return recovered;
}

/**
 * Answers the messages left in the inbox of sessions with no run in progress: queued by
 * another process as the run ended, or left when the process whose run ended died before it
 * read the inbox. Only messages queued at least `olderThan` ms ago; not a session whose stored
 * run is in flight (its own recovery, or the process running it, takes them), nor another
 * agent's. The runtime's lease and the save that takes a message make each answered once: a
 * process that meets the session busy (another recovery took it) leaves it to that one.
 * Those runs are not listed in the result (a session that cannot be read is, with its error).
 */
async function answerStranded(
  runtime: RecoveryRuntime,
  options: RecoverOptions & { limit: number },
  tried: Set<string>,
  recovered: RecoveredRun[],
): Promise<void> {
  const { store, clock, scope } = runtime;
  if (!supportsCapability(store, 'queuedSessions') || !hasMessageInbox(store)) return;
  const { userId, limit, olderThan } = options;
  for (const key of await store.queuedSessions({ userId, limit })) {
    if (scope && key.sessionId !== scope.sessionId) continue;
    if (tried.has(sessionPart(key))) continue; // its recovered run's end read the inbox
    try {
      const [first] = await store.queuedMessages(key, { limit: 1 });
      if (!first || first.at > clock.now() - olderThan) continue;
      if (await isWorkflowInstance(store, key)) continue;
      const record = await runtime.load(key);
      if (storedRunInFlight(record, clock.now())) continue;
      const agentName = storedRun<RunLike>(record.snapshot)?.context?.agentName;
      if (agentName !== undefined && agentName !== runtime.agentName) continue;
      await runtime.drainInbox(key);
    } catch (error) {
      recovered.push({ key, error }); // unreadable: left in the inbox; the others go on
    }
  }
}

/**
 * Whether the record at `key` is a workflow instance (`workflow` set): it shares the store's
 * leases and message inbox with the sessions, and its own host recovers it, never a session's
 * runtime.
 */
async function isWorkflowInstance(store: SessionStore, key: SessionKey): Promise<boolean> {
  return (await store.load(key)).workflow !== undefined;
}

async function* candidates(
  expired: SessionKey[],
  left: AsyncGenerator<SessionKey>,
): AsyncGenerator<SessionKey> {
  yield* expired;
  yield* left;
}

/**
 * The active sessions of `userId` that no lease of this process covers, when the store's
 * leases live in this process (none otherwise: a shared store's leases outlive their owner).
 */
async function* leftByEarlierProcess(
  store: SessionStore & SessionLeases,
  userId: string | undefined,
): AsyncGenerator<SessionKey> {
  if (store.leasesInProcess !== true || !supportsCapability(store, 'leaseReads')) return;
  let cursor: string | undefined;
  do {
    const page = await store.list({ userId, status: 'active', limit: PAGE, cursor });
    for (const info of page.sessions) {
      const key = { sessionId: info.sessionId, userId: info.userId };
      if ((await store.leaseOf(key)) === undefined) yield key;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
